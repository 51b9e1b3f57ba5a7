package org.objrdma.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.rdma.RdmaSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Forward mode of session affinity ({@code rdma.foreign.sessions = forward}): the client's READY or CANCEL goes
 * to the owning node as the client signed it — same method, raw path and query, every end-to-end header
 * including {@code Host}, the same body — and the owner's answer (status, headers, body) goes back to the
 * client. The owner authenticates it exactly as if the client had sent it there, so no trust between nodes is
 * needed. The forwarded request carries {@link #FORWARDED_BY}; a node never forwards a request that has it.
 */
final class OwnerForwarding {

    /** Marks a forwarded request; its value is the forwarding node's address as the owner's socket sees it. */
    static final String FORWARDED_BY = "x-objrdma-forwarded-by";
    /** On the relayed answer: the owner's endpoint the request was forwarded to. */
    static final String FORWARDED_TO = "x-objrdma-forwarded-to";
    /** Largest READY/CANCEL body forwarded (theirs are empty); a larger one is refused, 413. */
    static final int MAX_BODY = 64 << 10;
    /** Largest owner answer relayed (theirs are empty, or an S3 error document). */
    private static final int MAX_ANSWER = 1 << 20;

    static final String UNREACHABLE = "RdmaSessionOwnerUnreachable";
    static final String TIMEOUT = "RdmaSessionOwnerTimeout";
    static final String BAD_ANSWER = "RdmaSessionOwnerBadAnswer";

    /** Hop-by-hop (RFC 9110 §7.6.1) or rewritten by this hop; never forwarded nor relayed. */
    private static final Set<String> HOP_BY_HOP = Set.of("connection", "keep-alive", "proxy-connection", "te",
            "trailer", "transfer-encoding", "upgrade", "content-length", FORWARDED_BY);
    /** Set by the container or the gateway on every answer; the owner's copy is not relayed over them. */
    private static final Set<String> NOT_RELAYED = Set.of("date", "server");

    private static final Logger LOG = LoggerFactory.getLogger(OwnerForwarding.class);

    private OwnerForwarding() {
    }

    /** Forwards the request to {@code owner} and relays its answer; nothing is changed on this node. */
    static void forward(Exchange x, URI owner) throws S3Exception, IOException {
        byte[] body = boundedBody(x);
        List<Http1Exchange.Header> headers = requestHeaders(x);
        String target = NodeRouting.pathAndQuery(x);
        RdmaSettings s = x.rdma.settings();
        Http1Exchange.Answer answer;
        Http1Exchange connection;
        try {
            connection = Http1Exchange.connect(owner, s.forwardConnectTimeout(), s.forwardReadTimeout());
        } catch (IOException e) {
            throw new S3Exception(UNREACHABLE, 502, "The node owning this RDMA session (" + owner
                    + ") cannot be reached: " + e.getMessage());
        }
        try (connection) {
            headers.add(new Http1Exchange.Header(FORWARDED_BY, connection.localAddress()));
            answer = connection.exchange(x.request.method(), target, headers, body, MAX_ANSWER);
        } catch (SocketTimeoutException e) {
            throw new S3Exception(TIMEOUT, 504, "The node owning this RDMA session (" + owner + ") did not answer within "
                    + s.forwardReadTimeout().toMillis() + " ms; the session's outcome is unknown");
        } catch (IOException e) {
            LOG.warn("Forwarding {} {} to {} failed", x.request.method(), x.request.rawPath(), owner, e);
            throw new S3Exception(BAD_ANSWER, 502, "The node owning this RDMA session (" + owner
                    + ") gave no usable answer: " + e.getMessage());
        }
        relay(x, owner, answer);
    }

    private static byte[] boundedBody(Exchange x) throws S3Exception, IOException {
        String declared = x.header("Content-Length");
        if (declared != null) {
            try {
                if (Long.parseLong(declared.strip()) > MAX_BODY) {
                    throw tooLarge();
                }
            } catch (NumberFormatException e) {
                throw RcErrors.bad("Content-Length is not a number: " + declared);
            }
        }
        try (InputStream in = x.request.body()) {
            byte[] body = in.readNBytes(MAX_BODY + 1);
            if (body.length > MAX_BODY) {
                throw tooLarge();
            }
            return body;
        }
    }

    private static S3Exception tooLarge() {
        return new S3Exception(S3ErrorCode.ENTITY_TOO_LARGE.code(), 413,
                "A READY or CANCEL forwarded to the session's node carries at most " + MAX_BODY + " body bytes");
    }

    private static List<Http1Exchange.Header> requestHeaders(Exchange x) throws S3Exception {
        List<Http1Exchange.Header> out = new ArrayList<>();
        for (String name : x.request.headerNames()) {
            if (HOP_BY_HOP.contains(name.toLowerCase(Locale.ROOT))) {
                continue;
            }
            for (String value : x.request.headers(name)) {
                if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0 || name.indexOf(':') >= 0) {
                    throw RcErrors.bad("header " + name + " cannot be forwarded (line break)");
                }
                out.add(new Http1Exchange.Header(name, value));
            }
        }
        return out;
    }

    private static void relay(Exchange x, URI owner, Http1Exchange.Answer answer) throws IOException {
        x.response.status(answer.status());
        for (Http1Exchange.Header h : answer.headers()) {
            String name = h.name().toLowerCase(Locale.ROOT);
            if (!HOP_BY_HOP.contains(name) && !NOT_RELAYED.contains(name)) {
                x.response.header(h.name(), h.value());
            }
        }
        x.response.header(FORWARDED_TO, owner.toString());
        x.response.contentLength(answer.body().length);
        try (OutputStream out = x.response.body()) {
            out.write(answer.body());
        }
    }
}
