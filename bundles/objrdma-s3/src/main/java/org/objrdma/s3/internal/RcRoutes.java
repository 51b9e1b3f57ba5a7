package org.objrdma.s3.internal;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import java.util.Locale;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.ObjectAccess;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.PrepareResult;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.ReadyResult;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionInfo;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.session.StagingSource;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.PartRange;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.ReadResult;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.rdma.RdmaHeaders;
import org.objrdma.wire.RcToken;
import org.objrdma.wire.RcTokenCodec;
import org.objrdma.wire.RcTokenCodecs;
import org.objrdma.wire.RcTokenHeader;
import org.objrdma.wire.TokenResult;

/**
 * The hipobj-rc-v2 routes (rc-session.md §1.5–1.6): {@code POST /.hipobj-rc/prepare}, {@code ready} and
 * {@code cancel} over the {@link SessionManager}. Every {@code x-amz-rdma-*} header must be signed; the
 * principal is SHA-256 of {@code access:secret}; READY and CANCEL of another principal's session answer as
 * if it did not exist.
 */
final class RcRoutes {

    /** The routes' path, parsed as a bucket by the gateway; not a legal bucket name, so never a real one. */
    static final String BUCKET = ".hipobj-rc";
    private static final HexFormat HEX = HexFormat.of();

    private RcRoutes() {
    }

    static void route(Exchange x) throws S3Exception, StoreException, IOException {
        if (!x.request.method().equals("POST")) {
            throw new S3Exception(S3ErrorCode.METHOD_NOT_ALLOWED, "The hipobj-rc-v2 routes take POST");
        }
        String protocol = x.header(RdmaHeaders.PROTOCOL);
        if (protocol == null || !protocol.strip().equals(RdmaHeaders.RC_PROTOCOL)) {
            x.response.header(RdmaHeaders.PROTOCOL_STATUS, "unsupported");
            throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED,
                    "x-amz-rdma-protocol must be " + RdmaHeaders.RC_PROTOCOL + ", was " + protocol);
        }
        RdmaRequests.requireSignedRdmaHeaders(x);
        SessionManager sessions = x.rdma.sessions().get();
        if (sessions == null) {
            throw RcErrors.unavailable("no session manager is running");
        }
        PrincipalId principal = RdmaRequests.principal(x);
        String route = x.key == null ? "" : x.key;
        if ((route.equals("ready") || route.equals("cancel")) && NodeRouting.routedToOwner(x, sessions)) {
            return;
        }
        switch (route) {
            case "prepare" -> prepare(x, sessions, principal);
            case "ready" -> ready(x, sessions, principal);
            case "cancel" -> cancel(x, sessions, principal);
            default -> throw new S3Exception("NoSuchRdmaRoute", 404, "The hipobj-rc-v2 routes are prepare, ready, cancel");
        }
    }

    private static void prepare(Exchange x, SessionManager sessions, PrincipalId principal)
            throws S3Exception, StoreException, IOException {
        RcTarget target = RcTarget.parse(RcHeaders.required(x, RdmaHeaders.TARGET));
        Op op = RcHeaders.op(x);
        target.checkQueryFor(op);
        long size = RcHeaders.decimal(x, RdmaHeaders.SIZE, true);
        if (size <= 0) {
            throw RcErrors.bad("x-amz-rdma-size must be above 0");
        }
        if (size > Integer.MAX_VALUE) {
            throw new S3Exception(S3ErrorCode.ENTITY_TOO_LARGE.code(), 413,
                    "x-amz-rdma-size " + size + " is above 2^31 - 1, the largest RC session");
        }
        long offset = x.header(RdmaHeaders.OFFSET) == null ? 0 : RcHeaders.decimal(x, RdmaHeaders.OFFSET, true);
        int psn = (int) RcHeaders.hex(x, RdmaHeaders.PSN, 1, 0xFF_FFFF);
        int cookie = (int) RcHeaders.hex(x, RdmaHeaders.COOKIE, 0, 0xFFFF_FFFFL); // 0 too: hipObject's client
        TokenResult<RcTokenHeader> token = RcTokenHeader.parse(RcHeaders.required(x, RdmaHeaders.TOKEN).strip());
        if (!token.isOk()) {
            throw RcErrors.bad("x-amz-rdma-token: " + token.detail());
        }
        RcToken t = token.value().token();
        byte[] key = RcHeaders.channelKey(x);
        TokenResult<EndpointInfo> endpoint = RcTokenCodecs.decode(t, new RcTokenCodec.Context(psn, Mtu.MTU_4096, key));
        if (!endpoint.isOk()) {
            throw RcErrors.bad("x-amz-rdma-token: " + endpoint.detail());
        }
        RemoteRegion declared = RcHeaders.clientMemory(x, size); // hipObject's client: its MR in headers
        RemoteRegion clientRegion = null;
        if (op == Op.GET) {
            clientRegion = token.value().span().map(s -> new RemoteRegion(s.address(), s.size(), t.rkey()))
                    .orElse(t.length() > 0 ? t.remoteRegion() : declared);
        }
        x.authorize(op == Op.GET ? StoreAction.GET_OBJECT : StoreAction.PUT_OBJECT, target.bucket(), target.key());
        GetSpan span = null;
        if (op == Op.GET) {
            span = GetSpan.of(x, target, offset, size);
        } else {
            target.checkUploadExists(x);
        }
        long objectOffset = span == null ? offset : span.objectOffset();
        PrepareRequest request = new PrepareRequest(principal, op, target.text(), objectOffset, size, psn, cookie,
                endpoint.value(), clientRegion);
        // one call: a GET's session stages its range from the store (and keeps the source for a chunked READY)
        PrepareResult prepared = op == Op.GET ? sessions.prepareGet(request, objectSource(x.store, target))
                : sessions.preparePut(request);
        if (!prepared.isOk()) {
            throw thrown(prepareFailure(x, prepared));
        }
        PrepareResponse p = prepared.response();
        SessionId id = p.sessionId();
        TokenResult<RcToken> serverToken = RcTokenCodecs.encode(p.serverEndpoint(), null);
        if (!serverToken.isOk()) {
            throw new S3Exception(S3ErrorCode.INTERNAL_ERROR, "the server endpoint has no token form");
        }
        x.response.header(RdmaHeaders.PROTOCOL, RdmaHeaders.RC_PROTOCOL);
        x.response.header(RdmaHeaders.REPLY, "200:" + serverToken.value().format());
        x.response.header(RdmaHeaders.SESSION, id.hex());
        x.response.header(RdmaHeaders.PSN, String.format("%06X", p.serverEndpoint().initialPsn().orElse(psn)));
        x.response.header(RdmaHeaders.QPN, Long.toHexString(p.serverEndpoint().queueNumber()));
        x.response.header(RdmaHeaders.MR_ADDR, Long.toHexString(p.stagingRegion().address()));
        x.response.header(RdmaHeaders.MR_RKEY, Integer.toHexString(p.stagingRegion().rkey()));
        p.serverEndpoint().as(EndpointInfo.Tcp.class)
                .ifPresent(tcp -> x.response.header(RdmaHeaders.CHANNEL_KEY, HEX.formatHex(tcp.key())));
        if (span != null && span.partsCount() > 0) {
            // GetPart: where the session's bytes lie in the object, as a plain GET by partNumber says it; the
            // status stays 200, the contract's reply is 200:<token> (see the README)
            x.response.header("Content-Range", "bytes " + objectOffset + "-" + (objectOffset + size - 1) + "/"
                    + span.objectSize());
            if (span.multipart()) {
                x.response.header("x-amz-mp-parts-count", String.valueOf(span.partsCount()));
            }
        }
        x.sendEmpty(200);
    }

    /**
     * What a GET session moves: {@code offset} and {@code size} inside the object, or inside part
     * {@code partNumber} of it (GetPart) when the target names one.
     *
     * @param partsCount 0 without a partNumber, else the parts the version is addressed by
     */
    private record GetSpan(long objectOffset, long objectSize, int partsCount, boolean multipart) {
        static GetSpan of(Exchange x, RcTarget target, long offset, long size) throws S3Exception, StoreException {
            try (ObjectContent content = x.store.open(target.bucket(), target.key(),
                    org.objrdma.api.store.Conditions.NONE)) {
                ObjectInfo info = content.info();
                long base = 0;
                long limit = info.size();
                int parts = 0;
                if (target.partNumber() > 0) {
                    PartRange part = content.part(target.partNumber()); // 416 InvalidPartNumber past the last
                    base = part.offset();
                    limit = part.length();
                    parts = part.partsCount();
                }
                if (offset > limit || size > limit - offset) {
                    throw new S3Exception(S3ErrorCode.INVALID_RANGE, "bytes " + offset + "+" + size + " are not inside the "
                            + limit + "-byte " + (parts > 0 ? "part " + target.partNumber() : "object"));
                }
                return new GetSpan(base + offset, info.size(), parts, info.partsCount() > 0);
            }
        }
    }

    /**
     * Why PREPARE was refused, as the S3 answer: the store's own failure while staging as it was thrown, a short read
     * as SHORT, a limit with the reason the session manager gave (which limit: the answer names it, the log too).
     */
    private static Exception prepareFailure(Exchange x, PrepareResult refused) {
        Exception failure = refused.sourceFailure();
        if (failure instanceof ShortRead) {
            return RcErrors.of(RcStatus.SHORT, "staging", style(x));
        }
        if (failure != null) {
            return failure;
        }
        S3Exception answer = RcErrors.of(refused.status(), refused.step(), style(x));
        if (refused.status() == RcStatus.LIMIT && !refused.reason().isEmpty()) {
            return new S3Exception(answer.code(), answer.status(), answer.getMessage() + ": " + refused.reason());
        }
        return answer;
    }

    /** Throws {@code e} as the route may throw it; what no route throws is wrapped in the IOException returned. */
    private static IOException thrown(Exception e) throws S3Exception, StoreException, IOException {
        switch (e) {
            case S3Exception s3 -> throw s3;
            case StoreException store -> throw store;
            case IOException io -> throw io;
            case RuntimeException runtime -> throw runtime;
            default -> {
                return new IOException(e);
            }
        }
    }

    /** The store read fewer bytes than the session's range (the object shrank): PREPARE answers SHORT. */
    private static final class ShortRead extends IOException {
        ShortRead(long read, long wanted, long offset) {
            super("short read: " + read + " of " + wanted + " bytes at " + offset);
        }
    }

    private static org.objrdma.s3.rdma.RdmaSettings.RcStatusStyle style(Exchange x) {
        return x.rdma.settings().rcStatusStyle();
    }

    private static SessionId sessionId(Exchange x) throws S3Exception {
        String v = RcHeaders.required(x, RdmaHeaders.SESSION).strip().toLowerCase(Locale.ROOT);
        return SessionId.parse(v).orElseThrow(() -> RcErrors.bad("x-amz-rdma-session must be 32 hex digits"));
    }

    private static void ready(Exchange x, SessionManager sessions, PrincipalId principal)
            throws S3Exception, StoreException, IOException {
        SessionId id = sessionId(x);
        int cookie = (int) RcHeaders.hex(x, RdmaHeaders.COOKIE, 0, 0xFFFF_FFFFL);
        long qpn = RcHeaders.hex(x, RdmaHeaders.QPN, 1, 0xFFFF_FFFFL);
        // a GET writes the session's size from this start (hipObject's client names its MR here, its PREPARE token
        // has none); the session core bounds it to one slice inside what PREPARE declared, if it declared anything
        RemoteRegion readyRegion = RcHeaders.clientMemory(x, Integer.MAX_VALUE);
        SessionObjects objects = new SessionObjects(x);
        ReadyResult r = sessions.ready(new ReadyRequest(principal, id, cookie, qpn, readyRegion), objects);
        if (!r.isOk()) {
            throw thrown(readyFailure(x, r, objects));
        }
        if (r.response().outcome() == ReadyOutcome.BUSY) {
            throw new S3Exception(RcErrors.CONFLICT, 409, "The peer was busy; retry READY");
        }
        ReadyResponse done = r.response();
        x.response.header(RdmaHeaders.PROTOCOL, RdmaHeaders.RC_PROTOCOL);
        x.response.header(RdmaHeaders.BYTES_TRANSFERRED, String.valueOf(done.bytesTransferred()));
        x.response.header(RdmaHeaders.COOKIE, String.format("%08X", done.cookieEcho()));
        x.response.header(RdmaHeaders.ETAG, done.etag());
        x.response.header(RdmaHeaders.VERSION_ID, done.versionId());
        if (r.op() == Op.PUT) {
            x.response.header("ETag", done.etag());
        }
        x.sendEmpty(200);
    }

    private static Exception readyFailure(Exchange x, ReadyResult r, SessionObjects objects) {
        if (r.accessRevoked()) {
            return new S3Exception(S3ErrorCode.ACCESS_DENIED, "Access Denied: permission for " + objects.target
                    + " was revoked; the session is cancelled");
        }
        if (r.storeFailure() != null) {
            return r.storeFailure();
        }
        ReadyOutcome outcome = r.response() == null ? null : r.response().outcome();
        if (outcome == ReadyOutcome.TIMEOUT) {
            return RcErrors.timeout(style(x));
        }
        if (r.status() == RcStatus.SESSION && r.op() != null) {
            // the session was found this principal's: the cookie is what did not match
            return RcErrors.cookieMismatch(style(x));
        }
        return RcErrors.of(r.status(), r.step(), style(x));
    }

    /** What READY asks the store: is the principal still allowed, and (PUT) store the bytes it wrote. */
    private static final class SessionObjects implements ObjectAccess {
        private final Exchange x;
        /** The session's target once READY looked it up, for the revoked-permission message. */
        private volatile String target = "";

        SessionObjects(Exchange x) {
            this.x = x;
        }

        @Override
        public boolean permits(SessionInfo session) throws S3Exception {
            RcTarget t = RcTarget.parse(session.target());
            target = t.text();
            StoreAction action = session.op() == Op.GET ? StoreAction.GET_OBJECT : StoreAction.PUT_OBJECT;
            return x.store.isAuthorized(x.auth.accessKeyId(), action, t.bucket(), t.key());
        }

        @Override
        public String store(SessionInfo session, MemorySegment bytes) throws S3Exception, StoreException {
            RcTarget t = RcTarget.parse(session.target());
            if (t.uploadId() == null) {
                PutResult put = x.store.put(t.bucket(), t.key(), bytes, PutOptions.DEFAULT);
                return Http.quote(put.etag());
            }
            PartInfo part = x.store.uploadPart(t.bucket(), t.key(), t.uploadId(), t.partNumber(), bytes,
                    PutOptions.DEFAULT);
            return Http.quote(part.etag());
        }
    }

    /**
     * A GET session's bytes from the store: its range at PREPARE, and for a GET larger than one staging buffer the
     * chunks its READY stages (the session keeps this source; the core compares each etag with the staged one).
     * Holds the store and the target only, not the PREPARE's exchange, which ends with its request.
     */
    private static StagingSource objectSource(ObjectStore store, RcTarget target) {
        return (offset, dst) -> {
            ReadResult r = store.read(target.bucket(), target.key(), offset, dst);
            if (r.bytesRead() != dst.byteSize()) {
                throw new ShortRead(r.bytesRead(), dst.byteSize(), offset);
            }
            return Http.quote(r.object().etag());
        };
    }

    private static void cancel(Exchange x, SessionManager sessions, PrincipalId principal) throws S3Exception, IOException {
        SessionId id = sessionId(x);
        RcStatus s = sessions.cancel(id, principal);
        switch (s) {
            // unknown, ended and another principal's sessions answer alike: cancel is idempotent and discloses nothing
            case OK, NO_SESSION, STALE, SESSION -> {
                x.response.header(RdmaHeaders.PROTOCOL, RdmaHeaders.RC_PROTOCOL);
                x.sendEmpty(204);
            }
            default -> throw RcErrors.of(s, "CANCEL", style(x));
        }
    }
}
