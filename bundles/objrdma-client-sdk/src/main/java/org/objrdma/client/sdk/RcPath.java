package org.objrdma.client.sdk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.RcClient;
import org.objrdma.client.RcOutcome;
import org.objrdma.client.RcTransfer;
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
 * The hipobj-rc-v2 path: per request of at most {@link RdmaS3#MAX_REQUEST} bytes a signed PREPARE, the data phase
 * of {@link RcClient} / {@link RcTransfer}, and a signed READY (CANCEL when READY cannot be sent), beside the S3
 * client ({@link RcRoutes}, to the S3Client's {@code endpointOverride}). A PREPARE answered 501 or refused as busy
 * ({@link GatewayBusy}) hands the call to {@link HttpFallback}; a refusal of READY comes after the data phase and
 * stays an error.
 */
final class RcPath {
    private final S3Client s3;
    private final HttpFallback http;
    private final MinBytes minBytes;
    private final Duration timeout;
    /** The TLS context of the RC routes' requests to an https gateway; null: the JDK's default trust. */
    private final SSLContext tls;
    private final RcClient rc;
    private RcRoutes routes;

    /** {@code transport} null: no RC client (the facade refuses RC without a transport). */
    RcPath(S3Client s3, Transport transport, HttpFallback http, MinBytes minBytes, Duration timeout, SSLContext tls) {
        this.s3 = s3;
        this.http = http;
        this.minBytes = minBytes;
        this.timeout = timeout;
        this.tls = tls;
        this.rc = transport == null ? null : new RcClient(transport, timeout);
    }

    /** {@code range} as {@link Spans#parseRange}; the caller checked the memory and the offset. */
    RdmaResult<GetObjectResponse> get(GetObjectRequest request, long[] range, ClientMemory memory, long memoryOffset) {
        long start;
        long length;
        String etag = null;
        if (range != null && range[1] >= 0) {
            start = range[0];
            length = range[1] - range[0];
        } else if (minBytes.choosesHttp(memory.size() - memoryOffset)) {
            return http.get(request, memory, memoryOffset, null); // the object cannot be larger than the memory
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
            return http.get(request, memory, memoryOffset, "an empty object moves nothing over RDMA");
        }
        if (minBytes.choosesHttp(length)) {
            return http.get(request, memory, memoryOffset, null);
        }
        // a part GET over RC: the gateway serves it (a store without part boundaries answers 501: then over HTTP)
        String target = target(request.bucket(), request.key(), null, 0)
                + (request.partNumber() == null ? "" : "?partNumber=" + request.partNumber());
        long done = 0;
        while (done < length) {
            long chunk = Math.min(RdmaS3.MAX_REQUEST, length - done);
            String declined = transfer(Op.GET, memory, memoryOffset + done, chunk, target, start + done, null);
            if (declined != null) {
                return http.get(request, memory, memoryOffset, declined);
            }
            done += chunk;
        }
        return new RdmaResult<>(GetObjectResponse.builder().contentLength(length).eTag(etag).build(), length,
                RdmaProtocol.RC, null);
    }

    /** The caller checked the span and chose RDMA for it (not below {@link MinBytes}). */
    RdmaResult<PutObjectResponse> put(PutObjectRequest request, ClientMemory memory, long memoryOffset, long size) {
        String[] etag = new String[1];
        String declined = transfer(Op.PUT, memory, memoryOffset, size,
                target(request.bucket(), request.key(), null, 0), 0, etag);
        return declined == null
                ? new RdmaResult<>(PutObjectResponse.builder().eTag(etag[0]).build(), size, RdmaProtocol.RC, null)
                : http.put(request, memory, memoryOffset, size, declined);
    }

    /** As {@link #put(PutObjectRequest, ClientMemory, long, long)} for one part of a multipart upload. */
    RdmaResult<UploadPartResponse> uploadPart(UploadPartRequest request, ClientMemory memory, long memoryOffset,
            long size) {
        String[] etag = new String[1];
        String declined = transfer(Op.PUT, memory, memoryOffset, size,
                target(request.bucket(), request.key(), request.uploadId(), request.partNumber()), 0, etag);
        return declined == null
                ? new RdmaResult<>(UploadPartResponse.builder().eTag(etag[0]).build(), size, RdmaProtocol.RC, null)
                : http.uploadPart(request, memory, memoryOffset, size, declined);
    }

    /**
     * One PREPARE / data phase / READY. Returns null when done, the decline reason when PREPARE answered 501 or
     * refused as busy ({@link GatewayBusy}). READY comes after the data phase: any refusal of it is an error.
     */
    private String transfer(Op op, ClientMemory memory, long memoryOffset, long size, String target,
            long objectOffset, String[] etagOut) {
        AwsCredentialsIdentity who = RdmaS3.signingIdentity(s3);
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
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20").replace("%7E", "~");
    }

    private synchronized RcRoutes routes() {
        if (routes == null) {
            S3ServiceClientConfiguration config = s3.serviceClientConfiguration();
            URI endpoint = config.endpointOverride().orElseThrow(() -> new IllegalStateException(
                    "hipobj-rc-v2 needs the gateway's endpoint: build the S3Client with endpointOverride(...)"));
            routes = new RcRoutes(endpoint, config.region().id(), timeout, tls);
        }
        return routes;
    }
}
