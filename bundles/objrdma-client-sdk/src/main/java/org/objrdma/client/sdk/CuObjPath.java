package org.objrdma.client.sdk;

import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportException;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.CuObjAgent;
import org.objrdma.wire.RdmaHeaders;
import org.objrdma.wire.SegmentStreams;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkResponse;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * The cuObject path: the S3Client's own GetObject / PutObject / UploadPart, each with the agent's token in the
 * signed {@code x-amz-rdma-token} header ({@link RdmaRequestPlugin}) and no body, while the bytes move one-sided.
 * A decline ({@code x-amz-rdma-reply: 501}, or no reply header) or a busy refusal ({@link GatewayBusy}) hands the
 * call to {@link HttpFallback}. The memory agent is opened for the principal the client signs as, once, at the
 * first transfer; {@link #close()} closes it.
 */
final class CuObjPath implements AutoCloseable {
    private final S3Client s3;
    private final Transport transport;
    private final HttpFallback http;
    private final MinBytes minBytes;
    private CuObjAgent agent;

    CuObjPath(S3Client s3, Transport transport, HttpFallback http, MinBytes minBytes) {
        this.s3 = s3;
        this.transport = transport;
        this.http = http;
        this.minBytes = minBytes;
    }

    /** {@code range} as {@link Spans#parseRange}; the caller checked the memory and the offset. */
    RdmaResult<GetObjectResponse> get(GetObjectRequest request, long[] range, ClientMemory memory, long memoryOffset) {
        long room = memory.size() - memoryOffset;
        long start = range == null ? 0 : range[0];
        long span = range == null || range[1] < 0 ? room : range[1] - range[0];
        if (span > room) {
            throw new IllegalArgumentException("the range of " + span + " bytes does not fit the " + room
                    + " bytes of memory after offset " + memoryOffset);
        }
        if (span == 0) {
            return http.get(request, memory, memoryOffset, "an empty range moves nothing over RDMA");
        }
        if (minBytes.choosesHttp(span)) {
            return http.get(request, memory, memoryOffset, null);
        }
        boolean ranged = range != null || span > RdmaS3.MAX_REQUEST;
        GetObjectResponse[] last = new GetObjectResponse[1];
        String[] declined = new String[1];
        long moved;
        try {
            moved = getChunks(request, memory, memoryOffset, span, start, ranged, last, declined);
        } catch (GatewayBusy busy) {
            // a GET reads: the whole span again over HTTP overwrites whatever an earlier chunk put there
            return http.get(request, memory, memoryOffset, busy.reason());
        }
        if (moved < 0) {
            throw new RdmaS3Exception(0, null, "the cuObject GET failed on this side (-errno " + -moved + ")");
        }
        return new RdmaResult<>(last[0], moved, declined[0] == null ? RdmaProtocol.CUOBJ : RdmaProtocol.HTTP,
                declined[0]);
    }

    /** The agent's chunked GET; throws {@link GatewayBusy} when a chunk's request is refused as busy. */
    private long getChunks(GetObjectRequest request, ClientMemory memory, long memoryOffset, long span, long start,
            boolean ranged, GetObjectResponse[] last, String[] declined) {
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
                    return SegmentStreams.fillAll(body,
                            Spans.slice(memory, memoryOffset + req.objectOffset(), req.size()));
                }));
            } catch (AwsServiceException e) {
                if (e.statusCode() == 416 && req.objectOffset() > 0) {
                    return 0L; // the previous chunk ended exactly at the object's end
                }
                throw busyOr(e);
            }
        });
    }

    /** The caller checked the span and chose RDMA for it (not below {@link MinBytes}). */
    RdmaResult<PutObjectResponse> put(PutObjectRequest request, ClientMemory memory, long memoryOffset, long size) {
        Declinable<PutObjectResponse> r = put(memory, memoryOffset, size, header -> s3.putObject(
                request.toBuilder().overrideConfiguration(o -> o.putHeader(RdmaHeaders.TOKEN, header)
                        .addPlugin(RdmaRequestPlugin.INSTANCE)).build(), RequestBody.empty()));
        return r.declined == null ? new RdmaResult<>(r.response, size, RdmaProtocol.CUOBJ, null)
                : http.put(request, memory, memoryOffset, size, r.declined);
    }

    /** As {@link #put(PutObjectRequest, ClientMemory, long, long)} for one part of a multipart upload. */
    RdmaResult<UploadPartResponse> uploadPart(UploadPartRequest request, ClientMemory memory, long memoryOffset,
            long size) {
        Declinable<UploadPartResponse> r = put(memory, memoryOffset, size, header -> s3.uploadPart(
                request.toBuilder().overrideConfiguration(o -> o.putHeader(RdmaHeaders.TOKEN, header)
                        .addPlugin(RdmaRequestPlugin.INSTANCE)).build(), RequestBody.empty()));
        return r.declined == null ? new RdmaResult<>(r.response, size, RdmaProtocol.CUOBJ, null)
                : http.uploadPart(request, memory, memoryOffset, size, r.declined);
    }

    /** The gateway's answer, or (response null) why the bytes must go over HTTP instead. */
    private record Declinable<T>(T response, String declined) {
    }

    /** Sends the S3 request that carries {@code tokenHeader}: a PutObject or an UploadPart. */
    private interface SignedPut<T> {
        T send(String tokenHeader);
    }

    private <T extends SdkResponse> Declinable<T> put(ClientMemory memory, long memoryOffset, long size,
            SignedPut<T> put) {
        if (size == 0) {
            return new Declinable<>(null, "an empty object moves nothing over RDMA");
        }
        Object[] out = new Object[2];
        long moved;
        try {
            moved = putChunks(memory, memoryOffset, size, put, out);
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
    private <T extends SdkResponse> long putChunks(ClientMemory memory, long memoryOffset, long size,
            SignedPut<T> put, Object[] out) {
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

    private synchronized CuObjAgent agent() {
        if (agent == null) {
            try {
                agent = CuObjAgent.openForPrincipal(transport, RdmaS3.signingIdentity(s3).secretAccessKey());
            } catch (TransportException e) {
                throw new RdmaS3Exception("cannot open the cuObject memory agent on " + transport.name() + ": "
                        + e.getMessage(), e);
            }
        }
        return agent;
    }

    /** Closes the memory agent (if one was opened); idempotent. */
    @Override
    public synchronized void close() {
        if (agent != null) {
            agent.close();
            agent = null;
        }
    }
}
