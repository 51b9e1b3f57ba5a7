package org.objrdma.client.sdk;

import java.time.Duration;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import org.objrdma.api.transport.Transport;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.CuObjAgent;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
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
 *
 * <p>This class checks the arguments and picks the path; each path is its own class: {@link CuObjPath},
 * {@link RcPath}, {@link HttpFallback}, with the client's {@link MinBytes} choice and the shared {@link Spans} rules.
 */
public final class RdmaS3 implements AutoCloseable {
    /** Largest span one request moves: the gateway's per-request limit for cuObject, and so for RC too. */
    public static final long MAX_REQUEST = CuObjAgent.DEFAULT_MAX_REQUEST_SIZE;

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
    private final RdmaProtocol protocol;
    private final MinBytes minBytes;
    private final HttpFallback http;
    private final CuObjPath cuObj;
    private final RcPath rc;

    private RdmaS3(S3Client s3, Transport transport, RdmaProtocol protocol, Duration timeout, SSLContext tls,
            long minBytes) {
        this.minBytes = new MinBytes(minBytes);
        this.s3 = Objects.requireNonNull(s3, "s3");
        this.protocol = Objects.requireNonNull(protocol, "protocol");
        Objects.requireNonNull(timeout, "timeout");
        this.http = new HttpFallback(s3);
        this.cuObj = new CuObjPath(s3, transport, http, this.minBytes);
        this.rc = new RcPath(s3, transport, http, this.minBytes, timeout, tls);
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
        return minBytes.bytes();
    }

    /**
     * GETs the object (or the request's {@code Range}: {@code bytes=a-b} or {@code bytes=a-}) into {@code memory}
     * from {@code memoryOffset}. The bytes must fit into the memory after the offset.
     *
     * @throws IllegalArgumentException for another range form, or a span that does not fit
     * @throws AwsServiceException      the gateway's refusal of the S3 request (e.g. 403, 404)
     * @throws RdmaS3Exception          an RC route's refusal or a failed data phase
     */
    public RdmaResult<GetObjectResponse> getObject(GetObjectRequest request, ClientMemory memory, long memoryOffset) {
        Spans.checkMemory(memory, memoryOffset, 0);
        long[] range = Spans.parseRange(request.range());
        return switch (protocol) {
            case HTTP -> http.get(request, memory, memoryOffset, null);
            case CUOBJ -> cuObj.get(request, range, memory, memoryOffset);
            case RC -> rc.get(request, range, memory, memoryOffset);
        };
    }

    /**
     * PUTs {@code [memoryOffset, +size)} of {@code memory} as the request's object (at most {@link #MAX_REQUEST}
     * bytes in one request: larger objects go as a multipart upload, see {@link #uploadPart}).
     */
    public RdmaResult<PutObjectResponse> putObject(PutObjectRequest request, ClientMemory memory, long memoryOffset,
            long size) {
        Spans.checkMemory(memory, memoryOffset, size);
        return switch (pathFor(size)) {
            case HTTP -> http.put(request, memory, memoryOffset, size, null);
            case CUOBJ -> cuObj.put(request, memory, memoryOffset, size);
            case RC -> rc.put(request, memory, memoryOffset, size);
        };
    }

    /** UploadPart of {@code [memoryOffset, +size)} (at most {@link #MAX_REQUEST}); CompleteMultipartUpload is the S3Client's. */
    public RdmaResult<UploadPartResponse> uploadPart(UploadPartRequest request, ClientMemory memory, long memoryOffset,
            long size) {
        Spans.checkMemory(memory, memoryOffset, size);
        return switch (pathFor(size)) {
            case HTTP -> http.uploadPart(request, memory, memoryOffset, size, null);
            case CUOBJ -> cuObj.uploadPart(request, memory, memoryOffset, size);
            case RC -> rc.uploadPart(request, memory, memoryOffset, size);
        };
    }

    /** A PUT's path: its size is known before sending, so the client's {@code rdma.min.bytes} decides first. */
    private RdmaProtocol pathFor(long size) {
        return minBytes.choosesHttp(size) ? RdmaProtocol.HTTP : protocol;
    }

    /** The credential {@code s3} signs with, resolved per transfer so that a rotating provider works. */
    static AwsCredentialsIdentity signingIdentity(S3Client s3) {
        return s3.serviceClientConfiguration().credentialsProvider().resolveIdentity().join();
    }

    /** Closes the cuObject memory agent (if one was opened); idempotent. */
    @Override
    public void close() {
        cuObj.close();
    }
}
