package org.objrdma.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.store.ByteRange;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreException;
import org.objrdma.cuobj.CuObjPrincipal;
import org.objrdma.cuobj.CuObjService;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.auth.PayloadMode;
import org.objrdma.s3.rdma.RdmaHeaders;
import org.objrdma.wire.CuObjTokenHeader;
import org.objrdma.wire.Errno;
import org.objrdma.wire.TokenResult;

/**
 * The cuObject contract (cuobj.md §10) on GetObject, PutObject and UploadPart: the descriptor in
 * {@code x-amz-rdma-token} names client memory; the bytes move by one-sided WRITE (GET) or READ (PUT)
 * through staging buffers, the HTTP exchange carries no body. Declines ({@code x-amz-rdma-reply: 501}) when
 * this gateway cannot serve the descriptor or the size is below {@code rdma.min.bytes}: a GET then answers
 * with the body, a PUT stores nothing.
 *
 * <p>A token {@code rc:<session>:<addr>:<size>:<rkey>} names a cuObject-over-RC connection instead
 * ({@link RcConnectionTable}): the same operations, the chunks moved on that connection's queue pair ({@link RcLane})
 * for the principal the connection is bound to.
 *
 * <p>Every transfer is made for the request's principal ({@link RdmaRequests#cuObjPrincipal}): the facade dials
 * the client's agent with that principal's agent key only, never a shared {@code agent.key}, so a descriptor
 * naming another principal's agent fails ({@code RDMATransferFailed}) and touches nothing there.
 */
final class CuObjOperations {

    static final String INVALID_TOKEN = "InvalidRDMAToken";
    static final String TRANSFER_FAILED = "RDMATransferFailed";

    private CuObjOperations() {
    }

    /**
     * Where the bytes go or come from: the descriptor and the client span; {@code rc} when the token names a
     * cuObject-over-RC connection ({@code rc:...}) instead of a descriptor.
     */
    private record Token(String descriptor, long remoteStart, long spanSize, RcConnectionToken rc) {
    }

    private static Token token(Exchange x) throws S3Exception {
        RdmaRequests.requireSignedRdmaHeaders(x);
        String header = x.header(RdmaHeaders.TOKEN).strip();
        if (RcConnectionToken.names(header)) {
            try {
                RcConnectionToken rc = RcConnectionToken.parse(header);
                return new Token(header, rc.address(), rc.size(), rc);
            } catch (IllegalArgumentException e) {
                throw new S3Exception(INVALID_TOKEN, 400, "The x-amz-rdma-token is malformed: " + e.getMessage());
            }
        }
        TokenResult<CuObjTokenHeader> parsed = CuObjTokenHeader.parse(header);
        if (!parsed.isOk()) {
            if (org.objrdma.wire.RcTokenHeader.parse(x.header(RdmaHeaders.TOKEN).strip()).isOk()) {
                // hipObject's single-round-trip form (an 88-hex token on the object request itself): a protocol this
                // gateway does not speak, not a malformed one; the marker tells the client to fall back (nothing moved)
                x.response.header(RdmaHeaders.PROTOCOL_STATUS, "unsupported");
                throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "An 88-hex hipObject token on the object request"
                        + " (one round trip) is not served: use the hipobj-rc-v2 routes (/.hipobj-rc/prepare, ready)"
                        + " or a cuObject descriptor");
            }
            throw new S3Exception(INVALID_TOKEN, 400, "The x-amz-rdma-token is malformed: " + parsed.detail());
        }
        CuObjTokenHeader t = parsed.value();
        long start = t.span().map(CuObjTokenHeader.Span::address).orElse(t.descriptor().remoteAddress());
        long size = t.span().map(CuObjTokenHeader.Span::size).orElse(t.descriptor().regionSize());
        if (!t.descriptor().covers(start, size)) {
            throw new S3Exception(INVALID_TOKEN, 400, "The x-amz-rdma-token's span [" + Long.toHexString(start) + ", +"
                    + size + ") is outside the region its descriptor names");
        }
        return new Token(t.descriptor().format(), start, size, null);
    }

    /**
     * The RC connection an {@code rc:} token names, bound to this request's principal and held for this request
     * (release it with {@link RcConnectionTable#release}); null for a cuObject descriptor. Called after the request
     * is authorized, so a refused request never binds a connection.
     */
    private static RcConnection acquire(Exchange x, Token t) throws S3Exception {
        if (t.rc() == null) {
            return null;
        }
        return table(x).acquire(t.rc().connection(), RdmaRequests.principal(x));
    }

    private static RcConnectionTable table(Exchange x) throws S3Exception {
        if (x.rdma.rcConnections() instanceof RcConnectionTable table) {
            return table;
        }
        throw new S3Exception(INVALID_TOKEN, 400, "The x-amz-rdma-token names an RC connection; this gateway serves none");
    }

    private static void release(Exchange x, RcConnection c) throws S3Exception {
        if (c != null) {
            table(x).release(c);
        }
    }

    /** Why this request cannot go over cuObject (or its RC connection), or null if it can. */
    private static String declineReason(Exchange x, long length, RcConnection rc) {
        CuObjService server = x.rdma.cuObj().get();
        if (rc == null && (server == null || !server.isConnected())) {
            return "no cuObject transport is available";
        }
        if (x.rdma.staging().get() == null) {
            return "no staging pool is available";
        }
        if (length == 0) {
            return "a 0-byte transfer has nothing to move";
        }
        if (length < x.rdma.settings().minBytes()) {
            return length + " bytes is below rdma.min.bytes (" + x.rdma.settings().minBytes() + ")";
        }
        return null;
    }

    private static CuObjPipeline pipeline(Exchange x, Token t, long length, RcConnection rc)
            throws S3Exception, CuObjPipeline.Unavailable {
        CuObjService server = x.rdma.cuObj().get();
        StagingPool pool = x.rdma.staging().get();
        if (pool == null || rc == null && server == null) {
            throw new CuObjPipeline.Unavailable("the cuObject server or staging pool went away", false);
        }
        String key = x.bucket + "/" + x.key;
        ChunkLane lane = rc != null
                ? new RcLane(rc, RdmaRequests.principal(x), key, t.remoteStart(), t.rc().rkey(),
                        table(x).settings().transferTimeout())
                : new FacadeLane(server, RdmaRequests.cuObjPrincipal(x), key, t.descriptor(), t.remoteStart());
        return CuObjPipeline.open(lane, pool, length, x.rdma.settings().chunkBytes());
    }

    static void get(Exchange x) throws S3Exception, StoreException, IOException {
        Token t = token(x);
        x.authorize(StoreAction.GET_OBJECT);
        RcConnection rc = acquire(x, t);
        try {
            get(x, t, rc);
        } finally {
            release(x, rc);
        }
    }

    private static void get(Exchange x, Token t, RcConnection rc) throws S3Exception, StoreException, IOException {
        ObjectOperations.checkVersion(x);
        String partNumberParam = x.query.get("partNumber");
        String rangeHeader = x.header("Range");
        if (partNumberParam != null && rangeHeader != null) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST, "Cannot specify both Range header and partNumber query parameter");
        }
        int partNumber = partNumberParam == null ? 0
                : x.intParam("partNumber", 1, 1, org.objrdma.api.store.StoreLimits.MAX_PART_NUMBER);
        String declined;
        try (ObjectContent content = x.store.open(x.bucket, x.key, ObjectOperations.conditions(x, ""))) {
            ObjectInfo info = content.info();
            ObjectOperations.Span span = partNumber > 0 ? ObjectOperations.Span.of(content.part(partNumber), info)
                    : ObjectOperations.Span.of(ByteRange.resolve(rangeHeader, info.size()), info);
            declined = declineReason(x, span.length(), rc);
            if (declined == null) {
                if (span.length() > t.spanSize()) {
                    throw new S3Exception(INVALID_TOKEN, 400, "The x-amz-rdma-token names " + t.spanSize()
                            + " bytes of client memory, the object range is " + span.length() + " bytes");
                }
                declined = sendOverRdma(x, t, rc, content, info, span, partNumber);
            }
        }
        if (declined != null) {
            // the contract's decline: the body comes over HTTP
            x.response.header(RdmaHeaders.REPLY, "501");
            x.response.header(org.objrdma.wire.RdmaHeaders.DECLINE_REASON, declined);
            ObjectOperations.get(x, false);
        }
    }

    /** Null when sent, the decline reason when the facade says it cannot serve this descriptor. */
    private static String sendOverRdma(Exchange x, Token t, RcConnection rc, ObjectContent content, ObjectInfo info,
            ObjectOperations.Span span, int partNumber) throws S3Exception, StoreException, IOException {
        long moved;
        try (CuObjPipeline p = pipeline(x, t, span.length(), rc)) {
            moved = p.sendFrom(content, span.offset());
        } catch (CuObjPipeline.Unavailable e) {
            if (e.busy) {
                throw new S3Exception("SlowDown", 503, "RDMA resources are busy: " + e.getMessage());
            }
            return e.getMessage();
        } catch (CuObjPipeline.Failure f) {
            if (f.declinable()) {
                return "the cuObject path cannot serve this descriptor (-errno " + f.errno + ")";
            }
            throw transferFailure(f, 502);
        }
        // the same headers as the plain GET (ObjectOperations.get), without the body
        boolean checksumMode = "ENABLED".equalsIgnoreCase(x.header("x-amz-checksum-mode"));
        Attributes.write(x.response, info, checksumMode && (span.whole() && partNumber == 0
                || partNumber > 0 && info.partsCount() == 0));
        if (partNumber > 0 && info.partsCount() > 0) {
            x.response.header("x-amz-mp-parts-count", String.valueOf(span.partsCount()));
        }
        int status = span.ranged() ? 206 : 200;
        if (span.ranged()) {
            x.response.header("Content-Range", "bytes " + span.offset() + "-" + span.last() + "/" + info.size());
        }
        x.response.header(RdmaHeaders.REPLY, String.valueOf(status));
        x.response.header(RdmaHeaders.BYTES_TRANSFERRED, String.valueOf(moved));
        x.response.header(RdmaHeaders.BYTES, String.valueOf(moved));
        x.sendEmpty(status);
        return null;
    }

    private static S3Exception transferFailure(CuObjPipeline.Failure f, int status) {
        if (f.errno == Errno.EACCES) {
            return new S3Exception(S3ErrorCode.ACCESS_DENIED,
                    "The x-amz-rdma-token names an address this gateway may not connect to");
        }
        if (f.errno == Errno.ENOMEM) {
            return new S3Exception("SlowDown", 503, "RDMA resources are busy (-ENOMEM)");
        }
        return new S3Exception(TRANSFER_FAILED, status, "The RDMA transfer failed after " + f.moved
                + " bytes (-errno " + f.errno + ", completion status " + f.wcStatus + "); nothing was stored");
    }

    /** The size of an RDMA PUT: the token's span; the HTTP body must be empty. */
    private static long putLength(Exchange x, Token t) throws S3Exception {
        PayloadMode mode = x.auth.payload();
        if (mode.chunked()) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST, "An RDMA PUT carries no body: send UNSIGNED-PAYLOAD");
        }
        long declared = Bodies.parseLength(x.header("Content-Length"), "Content-Length");
        if (declared > 0) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST,
                    "An RDMA PUT carries no body (Content-Length: 0); the token names the bytes");
        }
        if (t.spanSize() > x.settings.maxPutBytes()) {
            throw new S3Exception(S3ErrorCode.ENTITY_TOO_LARGE, "Your proposed upload of " + t.spanSize()
                    + " bytes exceeds the maximum allowed size of " + x.settings.maxPutBytes() + " bytes");
        }
        return t.spanSize();
    }

    /** A PUT or UploadPart declined before anything was stored; answered by {@link #answerDeclined}. */
    private static final class Declined extends Exception {
        private static final long serialVersionUID = 1L;

        Declined(String reason) {
            super(reason, null, false, false);
        }
    }

    private static Declined decline(Exchange x, String reason) {
        return new Declined(reason);
    }

    /**
     * The answer to a declined PUT or UploadPart (nothing was stored): {@code x-amz-rdma-reply: 501} always, with
     * HTTP {@code 501 NotImplemented} or, with {@code rdma.declined.put=200} (Cloudian-style clients, which fall back
     * to HTTP only on a 2xx whose reply is not 200), HTTP {@code 200} without an {@code ETag}.
     */
    private static void answerDeclined(Exchange x, Declined d) throws S3Exception, IOException {
        x.response.header(RdmaHeaders.REPLY, "501");
        x.response.header(org.objrdma.wire.RdmaHeaders.DECLINE_REASON, d.getMessage());
        if (x.rdma.settings().declinedPut() == org.objrdma.s3.rdma.RdmaSettings.DeclinedPut.STATUS_200) {
            x.response.header(RdmaHeaders.BYTES_TRANSFERRED, "0");
            x.response.header(RdmaHeaders.BYTES, "0");
            x.sendEmpty(200);
            return;
        }
        throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "RDMA declined, nothing was stored (retry over HTTP): "
                + d.getMessage());
    }

    /** A put of the bytes that arrive by RDMA; null when declined before any byte moved. */
    private interface Commit<T> {
        T store(InputStream in, long length, Bodies.Body checks) throws StoreException, IOException;
    }

    private static <T> T receive(Exchange x, Token t, long length, Commit<T> commit)
            throws S3Exception, StoreException, IOException, Declined {
        RcConnection rc = acquire(x, t);
        try {
            return receive(x, t, rc, length, commit);
        } finally {
            release(x, rc);
        }
    }

    private static <T> T receive(Exchange x, Token t, RcConnection rc, long length, Commit<T> commit)
            throws S3Exception, StoreException, IOException, Declined {
        String reason = declineReason(x, length, rc);
        if (reason != null) {
            throw decline(x, reason);
        }
        try (CuObjPipeline p = pipeline(x, t, length, rc)) {
            InputStream in = p.receiver();
            try {
                return commit.store(in, length, Bodies.arrived(x, in, length));
            } catch (StoreException | IOException | RuntimeException e) {
                CuObjPipeline.Failure f = p.failure();
                if (f == null) {
                    throw e;
                }
                if (f.declinable()) {
                    throw decline(x, "the cuObject path cannot serve this descriptor (-errno " + f.errno + ")");
                }
                throw transferFailure(f, 500);
            }
        } catch (CuObjPipeline.Unavailable e) {
            if (e.busy) {
                throw new S3Exception("SlowDown", 503, "RDMA resources are busy: " + e.getMessage());
            }
            throw decline(x, e.getMessage());
        }
    }

    static void put(Exchange x) throws S3Exception, StoreException, IOException {
        Token t = token(x);
        x.authorize(StoreAction.PUT_OBJECT);
        long length = putLength(x, t);
        // S3's conditional write holds on the RDMA PUT as on the plain one (refused before any byte moves
        // when the store cannot keep it)
        org.objrdma.api.store.WriteCondition condition = ConditionalWrites.of(x);
        PutResult result;
        try {
            result = receive(x, t, length, (in, n, checks) -> x.store.put(x.bucket, x.key, in, n,
                    new PutOptions(Attributes.from(x.request), checks.checksums(), checks.verifier(), condition)));
        } catch (Declined d) {
            answerDeclined(x, d);
            return;
        }
        replyPut(x, result.etag(), result.checksums(), length);
    }

    static void uploadPart(Exchange x, String uploadId) throws S3Exception, StoreException, IOException {
        Token t = token(x);
        x.authorize(StoreAction.PUT_OBJECT);
        int n = MultipartOperations.partNumber(x);
        long length = putLength(x, t);
        PartInfo part;
        try {
            part = receive(x, t, length, (in, len, checks) -> x.store.uploadPart(x.bucket, x.key, uploadId, n,
                    in, len, PutOptions.DEFAULT.withChecksums(checks.checksums()).withVerifier(checks.verifier())));
        } catch (Declined d) {
            answerDeclined(x, d);
            return;
        }
        replyPut(x, part.etag(), part.checksums(), length);
    }

    private static void replyPut(Exchange x, String etag, java.util.Map<org.objrdma.api.store.ChecksumAlgorithm, String> checksums,
            long length) throws IOException {
        x.response.header("ETag", Http.quote(etag));
        Attributes.writeChecksums(x.response, checksums);
        x.response.header(RdmaHeaders.REPLY, "200");
        x.response.header(RdmaHeaders.BYTES_TRANSFERRED, String.valueOf(length));
        x.response.header(RdmaHeaders.BYTES, String.valueOf(length));
        x.sendEmpty(200);
    }
}
