package org.objrdma.s3.internal;

import java.io.IOException;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionManager;
import org.objrdma.s3.rdma.RdmaHeaders;

/**
 * Session affinity across gateways without shared state: a READY or CANCEL whose session id carries another
 * node's tag ({@link SessionManager#foreignOwner}) is answered {@code 307 Temporary Redirect} to that node's
 * advertised endpoint, same path and query. The client signs the request again for the new host (SigV4
 * covers {@code Host}), so nothing of the request is trusted across nodes. Runs after authentication: an
 * anonymous caller learns nothing, not even that the tag is known.
 */
final class NodeRouting {
    private NodeRouting() {
    }

    /**
     * Answers the redirect and returns true when the request's session belongs to another node; false (nothing
     * sent) for this node's sessions, unknown tags, no fleet, or a missing or malformed session header, which
     * the route then refuses as before.
     */
    static boolean redirectedToOwner(Exchange x, SessionManager sessions) throws IOException {
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
        String query = x.request.rawQuery();
        String location = owner.get() + x.request.rawPath() + (query == null || query.isEmpty() ? "" : "?" + query);
        x.response.header("Location", location);
        x.response.header(RdmaHeaders.PROTOCOL, RdmaHeaders.RC_PROTOCOL);
        x.sendEmpty(307);
        return true;
    }
}
