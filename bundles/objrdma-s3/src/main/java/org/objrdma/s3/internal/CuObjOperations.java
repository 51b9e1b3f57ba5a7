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
import org.objrdma.cuobj.CuObjServer;
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
 * <p>Every transfer is made for the request's principal ({@link RdmaRequests#cuObjPrincipal}): the facade dials
 * the client's agent with that principal's agent key only, never a shared {@code agent.key}, so a descriptor
 * naming another principal's agent fails ({@code RDMATransferFailed}) and touches nothing there.
 */
final class CuObjOperations {

    static final String INVALID_TOKEN = "InvalidRDMAToken";
    static final String TRANSFER_FAILED = "RDMATransferFailed";

    private CuObjOperations() {
    }

    /** Where the bytes go or come from: the descriptor and the client span. */
    private record Token(String descriptor, long remoteStart, long spanSize) {
    }

    private static Token token(Exchange x) throws S3Exception {
        RdmaRequests.requireSignedRdmaHeaders(x);
        TokenResult<CuObjTokenHeader> parsed = CuObjTokenHeader.parse(x.header(RdmaHeaders.TOKEN).strip());
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
        return new Token(t.descriptor().format(), start, size);
    }

    /** Why this request cannot go over cuObject, or null if it can. */
    private static String declineReason(Exchange x, long length) {
        CuObjServer server = x.rdma.cuObj().get();
        if (server == null || !server.isConnected()) {
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

    private static CuObjPipeline pipeline(Exchange x, Token t, long length) throws S3Exception, CuObjPipeline.Unavailable {
        CuObjServer server = x.rdma.cuObj().get();
        StagingPool pool = x.rdma.staging().get();
        if (server == null || pool == null) {
            throw new CuObjPipeline.Unavailable("the cuObject server or staging pool went away", false);
        }
        CuObjPrincipal principal = RdmaRequests.cuObjPrincipal(x);
        return CuObjPipeline.open(server, pool, principal, x.bucket + "/" + x.key, t.descriptor(), t.remoteStart(),
                length, x.rdma.settings().chunkBytes());
    }

    static void get(Exchange x) throws S3Exception, StoreException, IOException {
        Token t = token(x);
        x.authorize(StoreAction.GET_OBJECT);
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
            declined = declineReason(x, span.length());
            if (declined == null) {
                if (span.length() > t.spanSize()) {
                    throw new S3Exception(INVALID_TOKEN, 400, "The x-amz-rdma-token names " + t.spanSize()
                            + " bytes of client memory, the object range is " + span.length() + " bytes");
                }
                declined = sendOverRdma(x, t, content, info, span, partNumber);
            }
        }
        if (declined != null) {
            // the contract's decline: the body comes over HTTP
            x.response.header(RdmaHeaders.REPLY, "501");
            x.response.header("x-amz-rdma-decline-reason", declined);
            ObjectOperations.get(x, false);
        }
    }

    /** Null when sent, the decline reason when the facade says it cannot serve this descriptor. */
    private static String sendOverRdma(Exchange x, Token t, ObjectContent content, ObjectInfo info,
            ObjectOperations.Span span, int partNumber) throws S3Exception, StoreException, IOException {
        long moved;
        try (CuObjPipeline p = pipeline(x, t, span.length())) {
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

    private static S3Exception decline(Exchange x, String reason) {
        x.response.header(RdmaHeaders.REPLY, "501");
        return new S3Exception(S3ErrorCode.NOT_IMPLEMENTED, "RDMA declined, nothing was stored (retry over HTTP): "
                + reason);
    }

    /** A put of the bytes that arrive by RDMA; null when declined before any byte moved. */
    private interface Commit<T> {
        T store(InputStream in, long length, Bodies.Body checks) throws StoreException, IOException;
    }

    private static <T> T receive(Exchange x, Token t, long length, Commit<T> commit)
            throws S3Exception, StoreException, IOException {
        String reason = declineReason(x, length);
        if (reason != null) {
            throw decline(x, reason);
        }
        try (CuObjPipeline p = pipeline(x, t, length)) {
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
        PutResult result = receive(x, t, length, (in, n, checks) -> x.store.put(x.bucket, x.key, in, n,
                new PutOptions(Attributes.from(x.request), checks.checksums(), checks.verifier(), condition)));
        replyPut(x, result.etag(), result.checksums(), length);
    }

    static void uploadPart(Exchange x, String uploadId) throws S3Exception, StoreException, IOException {
        Token t = token(x);
        x.authorize(StoreAction.PUT_OBJECT);
        int n = MultipartOperations.partNumber(x);
        long length = putLength(x, t);
        PartInfo part = receive(x, t, length, (in, len, checks) -> x.store.uploadPart(x.bucket, x.key, uploadId, n,
                in, len, PutOptions.DEFAULT.withChecksums(checks.checksums()).withVerifier(checks.verifier())));
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
