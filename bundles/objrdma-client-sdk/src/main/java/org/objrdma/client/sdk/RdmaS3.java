package org.objrdma.client.sdk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.CuObjAgent;
import org.objrdma.client.CuObjRequest;
import org.objrdma.client.RcClient;
import org.objrdma.client.RcOutcome;
import org.objrdma.client.RcTransfer;
import org.objrdma.wire.RdmaHeaders;
import org.objrdma.wire.SegmentStreams;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * An application's own {@link S3Client} with the RDMA path: GetObject, PutObject and UploadPart move the object
 * bytes one-sided between the gateway's staging memory and the caller's {@link ClientMemory}, over cuObject (the
 * SDK sends the request, with a signed {@code x-amz-rdma-token} and no body) or hipobj-rc-v2 (PREPARE / READY
 * beside the S3 client, signed with the SDK's signer). When the gateway declines ({@code x-amz-rdma-reply: 501},
 * an RC route answering 501) the same call moves the bytes over plain HTTP with the same client, into or out of the
 * same memory, and says so in the {@link RdmaResult}. So it does when the gateway refuses the RDMA path before any
 * byte moved because its RDMA resources are busy (PREPARE's 429 {@code RdmaResourceLimit}, the cuObject route's
 * 503 {@code SlowDown}: see {@link GatewayBusy}); a refusal after the data phase started (READY) stays an error.
 * Every other S3 call stays the application's.
 *
 * <p>Endpoint, region and credentials are the S3Client's own ({@code serviceClientConfiguration()}); the cuObject
 * memory agent is keyed for the principal the client signs as ({@link CuObjAgent#openForPrincipal}), once, at the
 * first cuObject transfer. Concurrent transfers are not tested: use one instance per thread. {@link #close()} closes
 * the agent; the S3Client and the transport stay the caller's.
 */
public final class RdmaS3 implements AutoCloseable {
    /** Largest span one request moves: the gateway's per-request limit for cuObject, and so for RC too. */
    public static final long MAX_REQUEST = CuObjAgent.DEFAULT_MAX_REQUEST_SIZE;
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d*)");

    /** What bounds each RC step unless a caller says otherwise. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    /**
     * The client's {@code rdma.min.bytes}: a transfer of fewer bytes goes over plain HTTP without asking for RDMA,
     * because below it the RDMA path (a token, a staging lease and a one-sided WRITE; for hipobj-rc-v2 two more
     * signed requests and a new connection) costs more than it saves. The measured crossover through the
     * distribution on the TCP transport; how it was measured: docs/bench/profile.md, "The crossover".
     */
    public static final long DEFAULT_MIN_BYTES = 2L << 20;

    private final S3Client s3;
    private final Transport transport;
    private final RdmaProtocol protocol;
    private final Duration timeout;
    private final long minBytes;
    private final RcClient rc;
    private CuObjAgent agent;
    private RcRoutes routes;
    /** The TLS context of the RC routes' requests to an https gateway; null: the JDK's default trust. */
    private final SSLContext tls;

    private RdmaS3(S3Client s3, Transport transport, RdmaProtocol protocol, Duration timeout, SSLContext tls,
            long minBytes) {
        if (minBytes < 1) {
            throw new IllegalArgumentException("rdma.min.bytes must be at least 1, was " + minBytes);
        }
        this.minBytes = minBytes;
        this.tls = tls;
        this.s3 = Objects.requireNonNull(s3, "s3");
        this.transport = transport;
        this.protocol = Objects.requireNonNull(protocol, "protocol");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.rc = transport == null ? null : new RcClient(transport, timeout);
        if (protocol != RdmaProtocol.HTTP && transport == null) {
            throw new IllegalArgumentException("the " + protocol.label() + " protocol needs a transport");
        }
    }

    /** RDMA over {@code transport} (the client's TCP transport for cuObject; TCP or verbs for RC), 30 s timeout. */
    public static RdmaS3 create(S3Client s3, Transport transport, RdmaProtocol protocol) {
        return create(s3, transport, protocol, DEFAULT_TIMEOUT);
    }

    /** As {@link #create(S3Client, Transport, RdmaProtocol)}; {@code timeout} bounds each RC step. */
    public static RdmaS3 create(S3Client s3, Transport transport, RdmaProtocol protocol, Duration timeout) {
        return new RdmaS3(s3, transport, protocol, timeout, null, DEFAULT_MIN_BYTES);
    }

    /**
     * As {@link #create(S3Client, Transport, RdmaProtocol, Duration)} for an {@code https} gateway whose certificate
     * the JDK's default trust store does not vouch for: the hipobj-rc-v2 PREPARE/READY/CANCEL requests (sent with the
     * JDK's HTTP client, not through {@code s3}) trust what {@code tls} trusts. Give {@code s3} the same trust
     * (e.g. its HTTP client's {@code tlsTrustManagersProvider}). Null {@code tls}: the JDK's default.
     */
    public static RdmaS3 create(S3Client s3, Transport transport, RdmaProtocol protocol, Duration timeout,
            SSLContext tls) {
        return new RdmaS3(s3, transport, protocol, timeout, tls, DEFAULT_MIN_BYTES);
    }

    /**
     * As {@link #create(S3Client, Transport, RdmaProtocol, Duration, SSLContext)} with the client's
     * {@code rdma.min.bytes}: transfers of fewer bytes go over plain HTTP (1: every non-empty transfer asks for
     * RDMA). A GET whose size is unknown before it is sent (cuObject, no closed range) goes over HTTP only when the
     * memory after the offset is below it (the object cannot be larger); else it asks, and the gateway's own
     * {@code rdma.min.bytes} may still decline it.
     *
     * @throws IllegalArgumentException {@code minBytes < 1}
     */
    public static RdmaS3 create(S3Client s3, Transport transport, RdmaProtocol protocol, Duration timeout,
            SSLContext tls, long minBytes) {
        return new RdmaS3(s3, transport, protocol, timeout, tls, minBytes);
    }

    public S3Client s3() {
        return s3;
    }

    public RdmaProtocol protocol() {
        return protocol;
    }

    /** Transfers below this many bytes go over plain HTTP (see {@link #DEFAULT_MIN_BYTES}). */
    public long minBytes() {
        return minBytes;
    }

    /**
     * True when a span of {@code bytes} goes over HTTP by this client's choice (not a decline: the result's
     * {@code declineReason} stays null, its path says HTTP).
     */
    private boolean belowMin(long bytes) {
        return bytes > 0 && bytes < minBytes;
    }

    // ------------------------------------------------------------------ GET

    /**
     * GETs the object (or the request's {@code Range}: {@code bytes=a-b} or {@code bytes=a-}) into {@code memory}
     * from {@code memoryOffset}. The bytes must fit into the memory after the offset.
     *
     * @throws IllegalArgumentException for another range form, or a span that does not fit
     * @throws AwsServiceException      the gateway's refusal of the S3 request (e.g. 403, 404)
     * @throws RdmaS3Exception          an RC route's refusal or a failed data phase
     */
    public RdmaResult<GetObjectResponse> getObject(GetObjectRequest request, ClientMemory memory, long memoryOffset) {
        checkMemory(memory, memoryOffset, 0);
        long[] range = parseRange(request.range());
        return switch (protocol) {
            case HTTP -> httpGet(request, memory, memoryOffset, null);
            case CUOBJ -> cuObjGet(request, range, memory, memoryOffset);
            case RC -> rcGet(request, range, memory, memoryOffset);
        };
    }

    private RdmaResult<GetObjectResponse> cuObjGet(GetObjectRequest request, long[] range, ClientMemory memory,
            long memoryOffset) {
        long room = memory.size() - memoryOffset;
        long start = range == null ? 0 : range[0];
        long span = range == null || range[1] < 0 ? room : range[1] - range[0];
        if (span > room) {
            throw new IllegalArgumentException("the range of " + span + " bytes does not fit the " + room
                    + " bytes of memory after offset " + memoryOffset);
        }
        if (span == 0) {
            return httpGet(request, memory, memoryOffset, "an empty range moves nothing over RDMA");
        }
        if (belowMin(span)) {
            return httpGet(request, memory, memoryOffset, null);
        }
        boolean ranged = range != null || span > MAX_REQUEST;
        GetObjectResponse[] last = new GetObjectResponse[1];
        String[] declined = new String[1];
        long moved;
        try {
            moved = cuObjGetChunks(request, memory, memoryOffset, span, start, ranged, last, declined);
        } catch (GatewayBusy busy) {
            // a GET reads: the whole span again over HTTP overwrites whatever an earlier chunk put there
            return httpGet(request, memory, memoryOffset, busy.reason());
        }
        if (moved < 0) {
            throw new RdmaS3Exception(0, null, "the cuObject GET failed on this side (-errno " + -moved + ")");
        }
        return new RdmaResult<>(last[0], moved, declined[0] == null ? RdmaProtocol.CUOBJ : RdmaProtocol.HTTP,
                declined[0]);
    }

    /** The agent's chunked GET; throws {@link GatewayBusy} when a chunk's request is refused as busy. */
    private long cuObjGetChunks(GetObjectRequest request, ClientMemory memory, long memoryOffset, long span,
            long start, boolean ranged, GetObjectResponse[] last, String[] declined) {
        return agent().get(memory, memoryOffset, span, req -> {
            GetObjectRequest.Builder b = request.toBuilder().overrideConfiguration(o -> o
                    .putHeader(RdmaHeaders.TOKEN, req.headerValue()).addPlugin(RdmaRequestPlugin.INSTANCE));
            if (ranged) {
                long from = start + req.objectOffset();
                b.range("bytes=" + from + "-" + (from + req.size() - 1));
            }
            try {
                return s3.getObject(b.build(), ((ResponseTransformer<GetObjectResponse, Long>) (response, body) -> {
                    last[0] = response;
                    String reply = response.sdkHttpResponse().firstMatchingHeader(RdmaHeaders.REPLY).orElse("");
                    if (reply.equals("200") || reply.equals("206")) {
                        return Long.parseLong(response.sdkHttpResponse()
                                .firstMatchingHeader(RdmaHeaders.BYTES_TRANSFERRED).orElse("-1"));
                    }
                    // declined (501) or a gateway without RDMA: the body is the object; it lands where RDMA would
                    declined[0] = declineReason(response.sdkHttpResponse(), reply);
                    return SegmentStreams.fillAll(body, slice(memory, memoryOffset + req.objectOffset(), req.size()));
                }));
            } catch (AwsServiceException e) {
                if (e.statusCode() == 416 && req.objectOffset() > 0) {
                    return 0L; // the previous chunk ended exactly at the object's end
                }
                throw busyOr(e);
            }
        });
    }

    private RdmaResult<GetObjectResponse> rcGet(GetObjectRequest request, long[] range, ClientMemory memory,
            long memoryOffset) {
        long start;
        long length;
        String etag = null;
        if (range != null && range[1] >= 0) {
            start = range[0];
            length = range[1] - range[0];
        } else if (belowMin(memory.size() - memoryOffset)) {
            return httpGet(request, memory, memoryOffset, null); // the object cannot be larger than the memory
        } else { // PREPARE names the exact size: learn it first
            HeadObjectResponse head = s3.headObject(h -> h.bucket(request.bucket()).key(request.key())
                    .versionId(request.versionId()).partNumber(request.partNumber()));
            etag = head.eTag();
            start = range == null ? 0 : range[0];
            length = Math.max(0, head.contentLength() - start);
        }
        long room = memory.size() - memoryOffset;
        if (length > room) {
            throw new IllegalArgumentException("the object's " + length + " bytes do not fit the " + room
                    + " bytes of memory after offset " + memoryOffset);
        }
        if (length == 0) {
            return httpGet(request, memory, memoryOffset, "an empty object moves nothing over RDMA");
        }
        if (belowMin(length)) {
            return httpGet(request, memory, memoryOffset, null);
        }
        // a part GET over RC: the gateway serves it (a store without part boundaries answers 501: then over HTTP)
        String target = target(request.bucket(), request.key(), null, 0)
                + (request.partNumber() == null ? "" : "?partNumber=" + request.partNumber());
        long done = 0;
        while (done < length) {
            long chunk = Math.min(MAX_REQUEST, length - done);
            String declined = rcTransfer(Op.GET, memory, memoryOffset + done, chunk, target, start + done, null);
            if (declined != null) {
                return httpGet(request, memory, memoryOffset, declined);
            }
            done += chunk;
        }
        return new RdmaResult<>(GetObjectResponse.builder().contentLength(length).eTag(etag).build(), length,
                RdmaProtocol.RC, null);
    }

    private RdmaResult<GetObjectResponse> httpGet(GetObjectRequest request, ClientMemory memory, long memoryOffset,
            String declined) {
        long[] n = new long[1];
        GetObjectResponse r = s3.getObject(request, ((ResponseTransformer<GetObjectResponse, GetObjectResponse>) (response, body) -> {
            n[0] = SegmentStreams.fillAll(body, memory.segment().asSlice(memoryOffset));
            return response;
        }));
        return new RdmaResult<>(r, n[0], RdmaProtocol.HTTP, declined);
    }

    // ------------------------------------------------------------------ PUT, UploadPart

    /**
     * PUTs {@code [memoryOffset, +size)} of {@code memory} as the request's object (at most {@link #MAX_REQUEST}
     * bytes in one request: larger objects go as a multipart upload, see {@link #uploadPart}).
     */
    public RdmaResult<PutObjectResponse> putObject(PutObjectRequest request, ClientMemory memory, long memoryOffset,
            long size) {
        checkMemory(memory, memoryOffset, size);
        RdmaProtocol path = belowMin(size) ? RdmaProtocol.HTTP : protocol;
        return switch (path) {
            case HTTP -> new RdmaResult<>(httpPut(request, memory, memoryOffset, size), size, RdmaProtocol.HTTP, null);
            case CUOBJ -> {
                Declinable<PutObjectResponse> r = cuObjPut(memory, memoryOffset, size, header -> s3.putObject(
                        request.toBuilder().overrideConfiguration(o -> o.putHeader(RdmaHeaders.TOKEN, header)
                                .addPlugin(RdmaRequestPlugin.INSTANCE)).build(), RequestBody.empty()));
                yield r.declined == null ? new RdmaResult<>(r.response, size, RdmaProtocol.CUOBJ, null)
                        : new RdmaResult<>(httpPut(request, memory, memoryOffset, size), size, RdmaProtocol.HTTP,
                                r.declined);
            }
            case RC -> {
                String[] etag = new String[1];
                String declined = rcTransfer(Op.PUT, memory, memoryOffset, size,
                        target(request.bucket(), request.key(), null, 0), 0, etag);
                yield declined == null
                        ? new RdmaResult<>(PutObjectResponse.builder().eTag(etag[0]).build(), size, RdmaProtocol.RC, null)
                        : new RdmaResult<>(httpPut(request, memory, memoryOffset, size), size, RdmaProtocol.HTTP,
                                declined);
            }
        };
    }

    /** UploadPart of {@code [memoryOffset, +size)} (at most {@link #MAX_REQUEST}); CompleteMultipartUpload is the S3Client's. */
    public RdmaResult<UploadPartResponse> uploadPart(UploadPartRequest request, ClientMemory memory, long memoryOffset,
            long size) {
        checkMemory(memory, memoryOffset, size);
        RdmaProtocol path = belowMin(size) ? RdmaProtocol.HTTP : protocol;
        return switch (path) {
            case HTTP -> new RdmaResult<>(httpPart(request, memory, memoryOffset, size), size, RdmaProtocol.HTTP, null);
            case CUOBJ -> {
                Declinable<UploadPartResponse> r = cuObjPut(memory, memoryOffset, size, header -> s3.uploadPart(
                        request.toBuilder().overrideConfiguration(o -> o.putHeader(RdmaHeaders.TOKEN, header)
                                .addPlugin(RdmaRequestPlugin.INSTANCE)).build(), RequestBody.empty()));
                yield r.declined == null ? new RdmaResult<>(r.response, size, RdmaProtocol.CUOBJ, null)
                        : new RdmaResult<>(httpPart(request, memory, memoryOffset, size), size, RdmaProtocol.HTTP,
                                r.declined);
            }
            case RC -> {
                String[] etag = new String[1];
                String declined = rcTransfer(Op.PUT, memory, memoryOffset, size,
                        target(request.bucket(), request.key(), request.uploadId(), request.partNumber()), 0, etag);
                yield declined == null
                        ? new RdmaResult<>(UploadPartResponse.builder().eTag(etag[0]).build(), size, RdmaProtocol.RC, null)
                        : new RdmaResult<>(httpPart(request, memory, memoryOffset, size), size, RdmaProtocol.HTTP,
                                declined);
            }
        };
    }

    private record Declinable<T>(T response, String declined) {
    }

    private interface SignedPut<T> {
        T send(String tokenHeader);
    }

    private <T extends software.amazon.awssdk.core.SdkResponse> Declinable<T> cuObjPut(ClientMemory memory,
            long memoryOffset, long size, SignedPut<T> put) {
        if (size == 0) {
            return new Declinable<>(null, "an empty object moves nothing over RDMA");
        }
        Object[] out = new Object[2];
        long moved;
        try {
            moved = cuObjPutChunks(memory, memoryOffset, size, put, out);
        } catch (GatewayBusy busy) {
            // the gateway stores a cuObject PUT only whole; refused as busy, it stored nothing: send it all over HTTP
            return new Declinable<>(null, busy.reason());
        }
        if (moved < 0) {
            throw new RdmaS3Exception(0, null, "the cuObject PUT failed on this side (-errno " + -moved + ")");
        }
        @SuppressWarnings("unchecked")
        T response = (T) out[0];
        return new Declinable<>(response, (String) out[1]);
    }

    /** The agent's PUT of one request; throws {@link GatewayBusy} when it is refused as busy. */
    private <T extends software.amazon.awssdk.core.SdkResponse> long cuObjPutChunks(ClientMemory memory,
            long memoryOffset, long size, SignedPut<T> put, Object[] out) {
        return agent().put(memory, memoryOffset, size, req -> {
            try {
                T answer = put.send(req.headerValue());
                String reply = answer.sdkHttpResponse().firstMatchingHeader(RdmaHeaders.REPLY).orElse("");
                if (reply.equals("501")) {
                    // declined with HTTP 200 (a gateway set for Cloudian-style clients): nothing was stored; the
                    // reply, not the status, says so
                    out[1] = declineReason(answer.sdkHttpResponse(), reply);
                    return req.size();
                }
                out[0] = answer;
                return req.size();
            } catch (AwsServiceException e) {
                SdkHttpResponse http = e.awsErrorDetails() == null ? null : e.awsErrorDetails().sdkHttpResponse();
                String reply = http == null ? "" : http.firstMatchingHeader(RdmaHeaders.REPLY).orElse("");
                if (e.statusCode() == 501) { // declined (reply 501) or a gateway without the cuObject routes
                    out[1] = declineReason(http, reply) + (e.awsErrorDetails().errorMessage() == null ? ""
                            : " (" + e.awsErrorDetails().errorMessage() + ")");
                    return req.size();
                }
                throw busyOr(e);
            }
        });
    }

    private PutObjectResponse httpPut(PutObjectRequest request, ClientMemory memory, long offset, long size) {
        MemorySegment body = slice(memory, offset, size);
        return s3.putObject(request.toBuilder().contentLength(size).build(),
                RequestBody.fromContentProvider(() -> SegmentStreams.reading(body), size, "application/octet-stream"));
    }

    private UploadPartResponse httpPart(UploadPartRequest request, ClientMemory memory, long offset, long size) {
        MemorySegment body = slice(memory, offset, size);
        return s3.uploadPart(request.toBuilder().contentLength(size).build(),
                RequestBody.fromContentProvider(() -> SegmentStreams.reading(body), size, "application/octet-stream"));
    }

    // ------------------------------------------------------------------ hipobj-rc-v2

    /**
     * One PREPARE / data phase / READY. Returns null when done, the decline reason when PREPARE answered 501 or
     * refused as busy ({@link GatewayBusy}). READY comes after the data phase: any refusal of it is an error.
     */
    private String rcTransfer(Op op, ClientMemory memory, long memoryOffset, long size, String target,
            long objectOffset, String[] etagOut) {
        AwsCredentialsIdentity who = credentials();
        RcRoutes r = routes();
        try (RcTransfer transfer = rc.begin(op, memory, memoryOffset, size)) {
            HttpResponse<String> prepared = r.prepare(who, op, target, objectOffset, size, transfer);
            if (prepared.statusCode() == 501) {
                return "hipobj-rc-v2 declined: " + RcRoutes.refusal("PREPARE", prepared).getMessage();
            }
            if (prepared.statusCode() != 200) {
                // before any byte moved: a resource limit sends the bytes over HTTP, any other refusal is an error
                GatewayBusy busy = GatewayBusy.of(prepared.statusCode(), RcRoutes.errorCode(prepared),
                        RcRoutes.errorMessage(prepared));
                if (busy != null) {
                    return busy.reason();
                }
                throw RcRoutes.refusal("PREPARE", prepared);
            }
            PrepareResponse session = RcRoutes.prepared(prepared, size);
            CompletableFuture<RcOutcome> data = transfer.start(session);
            HttpResponse<String> ready;
            try {
                ready = r.ready(who, session.sessionId(), transfer);
            } catch (IOException | RuntimeException e) {
                cancelQuietly(r, who, session);
                throw e;
            }
            if (ready.statusCode() != 200) {
                throw RcRoutes.refusal("READY", ready);
            }
            RcOutcome outcome = data.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            // READY's 200 is authoritative for a PUT: the TCP transport can lose the acknowledgement of the client's
            // WRITE_WITH_IMM when the server closes the session channel right after the commit
            boolean putAckLost = op == Op.PUT && outcome.status() == WcStatus.RETRY_EXC_ERR;
            if (!outcome.ok() && !putAckLost) {
                throw new RdmaS3Exception(200, null, "READY answered 200 but the client's data phase failed: " + outcome);
            }
            if (etagOut != null) {
                etagOut[0] = ready.headers().firstValue("ETag").orElse(null);
            }
            return null;
        } catch (TransportException e) {
            throw new RdmaS3Exception("cannot open the hipobj-rc-v2 channel: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("hipobj-rc-v2 request to " + r + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RdmaS3Exception("interrupted during the hipobj-rc-v2 data phase", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new RdmaS3Exception("the hipobj-rc-v2 data phase did not finish in " + timeout, e);
        }
    }

    private static void cancelQuietly(RcRoutes r, AwsCredentialsIdentity who, PrepareResponse session) {
        try {
            r.cancel(who, session.sessionId());
        } catch (IOException | RuntimeException ignored) {
            // the session's lease ends it anyway
        }
    }

    /** {@code /bucket/key[?uploadId=…&partNumber=N]}, each segment percent-encoded as a path. */
    static String target(String bucket, String key, String uploadId, Integer partNumber) {
        StringBuilder t = new StringBuilder("/").append(encode(bucket)).append('/');
        for (String segment : key.split("/", -1)) {
            t.append(encode(segment)).append('/');
        }
        t.setLength(t.length() - 1);
        if (uploadId != null) {
            t.append("?uploadId=").append(encode(uploadId)).append("&partNumber=").append(partNumber);
        }
        return t.toString();
    }

    private static String encode(String s) {
        return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20")
                .replace("%7E", "~");
    }

    // ------------------------------------------------------------------ shared

    /**
     * {@code bytes=a-b} as {@code {a, b + 1}}, {@code bytes=a-} as {@code {a, -1}}, none as null.
     *
     * @throws IllegalArgumentException for a suffix range, several ranges, or {@code b < a}
     */
    static long[] parseRange(String range) {
        if (range == null || range.isBlank()) {
            return null;
        }
        Matcher m = RANGE.matcher(range.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("Range '" + range + "': only bytes=FIRST-LAST and bytes=FIRST- are"
                    + " supported over RDMA");
        }
        long first = Long.parseLong(m.group(1));
        if (m.group(2).isEmpty()) {
            return new long[] {first, -1};
        }
        long last = Long.parseLong(m.group(2));
        if (last < first) {
            throw new IllegalArgumentException("Range '" + range + "': the last byte is before the first");
        }
        return new long[] {first, last + 1};
    }

    private static void checkMemory(ClientMemory memory, long offset, long size) {
        Objects.requireNonNull(memory, "memory");
        if (offset < 0 || size < 0 || offset > memory.size() || size > memory.size() - offset) {
            throw new IllegalArgumentException("[" + offset + ", +" + size + ") is outside the " + memory.size()
                    + " bytes of memory");
        }
        if (size > MAX_REQUEST) {
            throw new IllegalArgumentException(size + " bytes exceed the " + MAX_REQUEST + " bytes one request moves:"
                    + " upload larger objects in parts (CreateMultipartUpload, uploadPart, CompleteMultipartUpload)");
        }
    }

    private static MemorySegment slice(ClientMemory memory, long offset, long size) {
        return memory.segment().asSlice(offset, size);
    }

    /** {@code e} as {@link GatewayBusy} when it is a resource-limit refusal, else {@code e} itself. */
    private static RuntimeException busyOr(AwsServiceException e) {
        String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
        String message = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorMessage();
        GatewayBusy busy = GatewayBusy.of(e.statusCode(), code, message);
        return busy == null ? e : busy;
    }

    private static String declineReason(SdkHttpResponse http, String reply) {
        String why = http == null ? null : http.firstMatchingHeader(RdmaHeaders.DECLINE_REASON).orElse(null);
        if (reply.isEmpty()) {
            return "the gateway does not serve cuObject (no " + RdmaHeaders.REPLY + " in its answer)";
        }
        return "the gateway declined RDMA (" + RdmaHeaders.REPLY + ": " + reply + (why == null ? "" : ", " + why)
                + ")";
    }

    private AwsCredentialsIdentity credentials() {
        return config().credentialsProvider().resolveIdentity().join();
    }

    private S3ServiceClientConfiguration config() {
        return s3.serviceClientConfiguration();
    }

    private synchronized CuObjAgent agent() {
        if (agent == null) {
            try {
                agent = CuObjAgent.openForPrincipal(transport, credentials().secretAccessKey());
            } catch (TransportException e) {
                throw new RdmaS3Exception("cannot open the cuObject memory agent on " + transport.name() + ": "
                        + e.getMessage(), e);
            }
        }
        return agent;
    }

    private synchronized RcRoutes routes() {
        if (routes == null) {
            URI endpoint = config().endpointOverride().orElseThrow(() -> new IllegalStateException(
                    "hipobj-rc-v2 needs the gateway's endpoint: build the S3Client with endpointOverride(...)"));
            routes = new RcRoutes(endpoint, config().region().id(), timeout, tls);
        }
        return routes;
    }

    /** Closes the cuObject memory agent (if one was opened); idempotent. */
    @Override
    public synchronized void close() {
        if (agent != null) {
            agent.close();
            agent = null;
        }
    }
}
