package org.objrdma.s3.internal;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import java.util.Locale;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionInfo;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.StagingSource;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectInfo;
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
        SessionResult<PrepareResponse> prepared = sessions.prepare(new PrepareRequest(principal, op, target.text(),
                objectOffset, size, psn, cookie, endpoint.value(), clientRegion));
        if (!prepared.isOk()) {
            org.objrdma.api.staging.StagingPool pool = x.rdma.staging().get();
            if (prepared.status() == RcStatus.LIMIT && op == Op.PUT && pool != null && size > pool.maxBufferSize()) {
                // the session core's answer has no room for which limit: name the ones a large PUT's window meets
                throw new S3Exception(RcErrors.LIMIT, RcErrors.of(RcStatus.LIMIT, "", style(x)).status(), "PREPARE: a " + size + "-byte PUT needs a staging window of"
                        + " its size; it does not fit org.objrdma.staging max.total.bytes / max.bytes.per.principal or"
                        + " org.objrdma.session max.staging.bytes / max.user.staging.bytes (the gateway log names which)");
            }
            throw RcErrors.of(prepared.status(), "PREPARE", style(x));
        }
        PrepareResponse p = prepared.value();
        SessionId id = p.sessionId();
        boolean committed = false;
        try {
            if (op == Op.GET) {
                stage(x, sessions, id, target, objectOffset, size);
            }
            RcStatus s = sessions.finishPrepare(id, true);
            if (!s.isOk()) {
                throw RcErrors.of(s, "PREPARE commit", style(x));
            }
            committed = true;
        } finally {
            if (!committed) {
                sessions.finishPrepare(id, false);
            }
        }
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

    /** GET: the object range read into the session's staging buffer at PREPARE. */
    private static void stage(Exchange x, SessionManager sessions, SessionId id, RcTarget target, long offset, long size)
            throws S3Exception, StoreException {
        if (!sessions.tryAcquireStageSlot().isOk()) {
            throw RcErrors.of(RcStatus.LIMIT, "staging", style(x));
        }
        try {
            SessionResult<SessionBuffer> lease = sessions.borrowStaging(id);
            if (!lease.isOk()) {
                throw RcErrors.of(lease.status(), "staging", style(x));
            }
            SessionBuffer b = lease.value();
            boolean ok = false;
            long written = 0;
            String etag = "";
            try {
                // the whole range, or the first chunk of a range larger than one staging buffer (the rest: READY)
                MemorySegment dst = b.buffer().asSlice(0, Math.min(size, b.buffer().byteSize()));
                ReadResult r = x.store.read(target.bucket(), target.key(), offset, dst);
                written = r.bytesRead();
                etag = r.object().etag();
                ok = true;
            } finally {
                RcStatus s = sessions.finishStaging(id, b.handle(), ok, written, ok ? Http.quote(etag) : "", "");
                if (ok && !s.isOk()) {
                    throw RcErrors.of(s, "staging", style(x));
                }
            }
        } finally {
            sessions.releaseStageSlot();
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
        SessionResult<SessionInfo> info = sessions.sessionInfo(id, principal);
        if (!info.isOk()) {
            throw RcErrors.of(info.status(), "READY", style(x));
        }
        RcTarget target = RcTarget.parse(info.value().target());
        Op op = info.value().op();
        StoreAction action = op == Op.GET ? StoreAction.GET_OBJECT : StoreAction.PUT_OBJECT;
        if (!x.store.isAuthorized(x.auth.accessKeyId(), action, target.bucket(), target.key())) {
            sessions.cancel(id, principal);
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "Access Denied: permission for " + target.text()
                    + " was revoked; the session is cancelled");
        }
        SessionResult<ReadyResponse> ready = sessions.readyTransfer(new ReadyRequest(principal, id, cookie, qpn,
                        op == Op.GET ? readyRegion : null),
                op == Op.GET ? restOfRange(x, target) : null);
        if (!ready.isOk()) {
            ReadyOutcome outcome = ready.failureDetail().map(ReadyResponse::outcome).orElse(null);
            if (outcome == ReadyOutcome.TIMEOUT) {
                throw RcErrors.timeout(style(x));
            }
            if (ready.status() == RcStatus.SESSION) {
                // sessionInfo above found the session this principal's: the cookie is what did not match
                throw RcErrors.cookieMismatch(style(x));
            }
            throw RcErrors.of(ready.status(), "READY", style(x));
        }
        ReadyResponse r = ready.value();
        if (r.outcome() == ReadyOutcome.BUSY) {
            throw new S3Exception(RcErrors.CONFLICT, 409, "The peer was busy; retry READY");
        }
        String etag = r.etag();
        String versionId = r.versionId();
        if (op == Op.PUT) {
            etag = commitPut(x, sessions, id, target);
            versionId = "";
        } else {
            RcStatus s = sessions.finishFinal(id);
            if (!s.isOk()) {
                throw RcErrors.of(s, "READY finish", style(x));
            }
        }
        x.response.header(RdmaHeaders.PROTOCOL, RdmaHeaders.RC_PROTOCOL);
        x.response.header(RdmaHeaders.BYTES_TRANSFERRED, String.valueOf(r.bytesTransferred()));
        x.response.header(RdmaHeaders.COOKIE, String.format("%08X", r.cookieEcho()));
        x.response.header(RdmaHeaders.ETAG, etag);
        x.response.header(RdmaHeaders.VERSION_ID, versionId);
        if (op == Op.PUT) {
            x.response.header("ETag", etag);
        }
        x.sendEmpty(200);
    }

    /**
     * GET larger than one staging buffer: where the session core reads the chunks after the first during READY,
     * from the version staged at PREPARE (the core compares the etag returned with the staged one).
     */
    private static StagingSource restOfRange(Exchange x, RcTarget target) {
        return (offset, dst) -> {
            ReadResult r = x.store.read(target.bucket(), target.key(), offset, dst);
            if (r.bytesRead() != dst.byteSize()) {
                throw new IOException("short read: " + r.bytesRead() + " of " + dst.byteSize() + " bytes at " + offset);
            }
            return Http.quote(r.object().etag());
        };
    }

    /** PUT: the staged bytes into the store; finishPut is the only finalizer once getPutData succeeded. */
    private static String commitPut(Exchange x, SessionManager sessions, SessionId id, RcTarget target)
            throws S3Exception, StoreException {
        SessionResult<SessionBuffer> view = sessions.getPutData(id);
        if (!view.isOk()) {
            sessions.finishFinal(id);
            throw RcErrors.of(view.status(), "PUT data", style(x));
        }
        SessionBuffer b = view.value();
        boolean committed = false;
        String etag = "";
        try {
            if (target.uploadId() == null) {
                PutResult put = x.store.put(target.bucket(), target.key(), b.buffer(), PutOptions.DEFAULT);
                etag = Http.quote(put.etag());
            } else {
                PartInfo part = x.store.uploadPart(target.bucket(), target.key(), target.uploadId(),
                        target.partNumber(), b.buffer(), PutOptions.DEFAULT);
                etag = Http.quote(part.etag());
            }
            committed = true;
            return etag;
        } finally {
            sessions.finishPut(id, b.handle(), committed, etag, "");
        }
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
