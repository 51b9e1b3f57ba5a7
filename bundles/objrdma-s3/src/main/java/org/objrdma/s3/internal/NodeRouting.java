package org.objrdma.s3.internal;

import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionManager;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.rdma.RdmaHeaders;
import org.objrdma.s3.rdma.RdmaSettings.ForeignSessions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Session affinity across gateways without shared state: a READY or CANCEL whose session id carries another
 * node's tag ({@link SessionManager#foreignOwner}) is answered {@code 307 Temporary Redirect} to that node's
 * advertised endpoint, same path and query — the client signs the request again for the new host (SigV4
 * covers {@code Host}) — or, with {@code rdma.foreign.sessions = forward}, sent on to that node as signed
 * ({@link OwnerForwarding}). Either way nothing of the request is trusted across nodes. Runs after
 * authentication: an anonymous caller learns nothing, not even that the tag is known.
 */
final class NodeRouting {
    private static final Logger LOG = LoggerFactory.getLogger(NodeRouting.class);

    private NodeRouting() {
    }

    /**
     * Answers (redirect, or the owner's relayed answer) and returns true when the request's session belongs to
     * another node; false (nothing sent) for this node's sessions, unknown tags, no fleet, or a missing or
     * malformed session header, which the route then refuses as before. A request already forwarded by another
     * node is never forwarded again: it gets the redirect, which the forwarding node relays.
     */
    static boolean routedToOwner(Exchange x, SessionManager sessions) throws IOException, S3Exception {
        String header = x.header(RdmaHeaders.SESSION);
        if (header == null) {
            return false;
        }
        Optional<SessionId> id = SessionId.parse(header.strip().toLowerCase(Locale.ROOT));
        if (id.isEmpty()) {
            return false;
        }
        Optional<URI> owner = sessions.foreignOwner(id.get());
        if (owner.isEmpty()) {
            return false;
        }
        String forwardedBy = x.header(OwnerForwarding.FORWARDED_BY);
        if (forwardedBy == null && x.rdma.settings().foreignSessions() == ForeignSessions.FORWARD) {
            OwnerForwarding.forward(x, owner.get());
            return true;
        }
        if (forwardedBy != null) {
            LOG.warn("{} forwarded a request for a session this node takes for {}'s: the fleet's nodes lines differ; "
                    + "answering 307, not forwarding again", forwardedBy, owner.get());
        }
        if (x.request.secure() && !"https".equalsIgnoreCase(owner.get().getScheme())) {
            // the client would re-sign and send the request in clear text: never downgrade a TLS client
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST, "This session belongs to the node at " + owner.get()
                    + ", a plain-http endpoint; a request that came over https is not redirected to plain http"
                    + " (list that node with an https:// endpoint, or use rdma.foreign.sessions = forward)");
        }
        x.response.header("Location", owner.get() + pathAndQuery(x));
        x.response.header(RdmaHeaders.PROTOCOL, RdmaHeaders.RC_PROTOCOL);
        x.sendEmpty(307);
        return true;
    }

    /** The request's raw path and, when there is one, {@code ?} and its raw query: what the owner is sent. */
    static String pathAndQuery(Exchange x) {
        String query = x.request.rawQuery();
        return x.request.rawPath() + (query == null || query.isEmpty() ? "" : "?" + query);
    }
}
