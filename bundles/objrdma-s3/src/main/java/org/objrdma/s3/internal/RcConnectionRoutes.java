package org.objrdma.s3.internal;

import java.io.IOException;
import java.util.Locale;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Mtu;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.S3Request;
import org.objrdma.s3.S3Response;
import org.objrdma.s3.rdma.RdmaHeaders;
import org.objrdma.s3.rdma.RdmaServices;
import org.objrdma.wire.RcToken;
import org.objrdma.wire.TokenResult;

/**
 * {@code POST /.s3rdma-rc/connect} and {@code /.s3rdma-rc/disconnect}: the connection routes of cuObject over RC, as
 * elbencho's client library ({@code cuobjclient-shim}) calls them, <b>unsigned</b> and without a body. Connect takes
 * the client queue pair in {@code x-amz-rdma-token} (a hipObject token, 88 hex, transport 1, rkey, address and length
 * zero) and its first PSN in {@code x-amz-rdma-psn} (6 hex, not 0); the answer names the connection
 * ({@code x-amz-rdma-session}, 32 hex), the server queue pair ({@code x-amz-rdma-reply: 200:<88 hex>}) and its PSN.
 * Disconnect names the connection and answers 204 whether or not it existed. A connection grants nothing by itself:
 * see {@link RcConnectionTable}.
 */
final class RcConnectionRoutes {

    /** The routes' path, parsed as a bucket: not a legal bucket name, so never a real one. */
    static final String BUCKET = ".s3rdma-rc";

    static final String UNAVAILABLE = "RdmaServiceUnavailable";
    static final String LIMIT = "RdmaResourceLimit";
    static final String CONNECT_FAILED = "RdmaConnectFailed";
    static final String BUSY = "RdmaConnectionBusy";
    static final String BAD_REQUEST = "InvalidRdmaRequest";

    private RcConnectionRoutes() {
    }

    static void route(S3Request request, S3Response response, String route, RdmaServices rdma)
            throws S3Exception, IOException {
        if (!request.method().equals("POST")) {
            throw new S3Exception(S3ErrorCode.METHOD_NOT_ALLOWED, "The RC connection routes take POST");
        }
        if (!request.rawQuery().isEmpty()) {
            throw bad("The RC connection routes take no query");
        }
        String length = request.header("Content-Length");
        if (length != null && !length.strip().equals("0") || request.header("Transfer-Encoding") != null) {
            throw bad("The RC connection routes take no body");
        }
        if (!(rdma.rcConnections() instanceof RcConnectionTable table)) {
            throw new S3Exception(UNAVAILABLE, 503, "This gateway serves no RC connections");
        }
        switch (route == null ? "" : route) {
            case "connect" -> connect(request, response, table);
            case "disconnect" -> disconnect(request, response, table);
            default -> throw new S3Exception("NoSuchRdmaRoute", 404, "The RC connection routes are connect, disconnect");
        }
    }

    private static void connect(S3Request request, S3Response response, RcConnectionTable table)
            throws S3Exception, IOException {
        String token = request.header(RdmaHeaders.TOKEN);
        TokenResult<RcToken> parsed = RcToken.parse(token == null ? "" : token.strip());
        if (!parsed.isOk()) {
            throw bad("x-amz-rdma-token: " + parsed.detail());
        }
        RcToken t = parsed.value();
        if (t.rkey() != 0 || t.remoteAddress() != 0 || t.length() != 0) {
            throw bad("x-amz-rdma-token: a connect token names a queue pair only (rkey, address and length 0)");
        }
        int psn = psn(request.header(RdmaHeaders.PSN));
        TokenResult<EndpointInfo.Verbs> client = t.verbsEndpoint(psn, Mtu.MTU_4096);
        if (!client.isOk()) {
            throw bad("x-amz-rdma-token: " + client.detail());
        }
        RcConnectionTable.Connected c = table.connect(client.value(), request.remoteAddress());
        response.header(RdmaHeaders.SESSION, c.id());
        response.header(RdmaHeaders.REPLY, "200:" + RcToken.forVerbs(c.server(), null).format());
        response.header(RdmaHeaders.PSN, String.format("%06x", c.server().psn()));
        sendEmpty(response, 200);
    }

    /** 6 hex digits, 1 .. 0xFFFFFF (a PSN of 0 is refused, as the reference server does). */
    private static int psn(String v) throws S3Exception {
        String s = v == null ? "" : v.strip().toLowerCase(Locale.ROOT);
        if (s.length() != 6 || !s.chars().allMatch(c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
            throw bad("x-amz-rdma-psn must be 6 hex digits, was '" + v + "'");
        }
        int psn = Integer.parseInt(s, 16);
        if (psn == 0) {
            throw bad("x-amz-rdma-psn must not be 0");
        }
        return psn;
    }

    private static void disconnect(S3Request request, S3Response response, RcConnectionTable table)
            throws S3Exception, IOException {
        String v = request.header(RdmaHeaders.SESSION);
        String id = v == null ? "" : v.strip().toLowerCase(Locale.ROOT);
        if (id.length() != 32 || !id.chars().allMatch(c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
            throw bad("x-amz-rdma-session must be 32 hex digits");
        }
        // unknown and ended connections answer alike: disconnect is idempotent and discloses nothing
        table.disconnect(id);
        sendEmpty(response, 204);
    }

    private static S3Exception bad(String message) {
        return new S3Exception(BAD_REQUEST, 400, message);
    }

    private static void sendEmpty(S3Response response, int status) throws IOException {
        response.status(status);
        response.contentLength(0);
        response.body().close();
    }
}
