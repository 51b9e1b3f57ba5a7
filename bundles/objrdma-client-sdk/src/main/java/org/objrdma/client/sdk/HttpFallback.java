package org.objrdma.client.sdk;

import java.lang.foreign.MemorySegment;
import org.objrdma.client.ClientMemory;
import org.objrdma.wire.SegmentStreams;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * The plain-HTTP path: the caller's own request sent by the caller's own S3Client, the body streamed straight from
 * or into the caller's memory. Taken for {@link RdmaProtocol#HTTP}, below the client's {@link MinBytes}, for an
 * empty span, and whenever the gateway declines RDMA or is busy.
 */
final class HttpFallback {
    private final S3Client s3;

    HttpFallback(S3Client s3) {
        this.s3 = s3;
    }

    /** GETs into the memory from {@code memoryOffset}; {@code declined} (null: the client's choice) goes into the result. */
    RdmaResult<GetObjectResponse> get(GetObjectRequest request, ClientMemory memory, long memoryOffset,
            String declined) {
        long[] n = new long[1];
        GetObjectResponse r = s3.getObject(request,
                ((ResponseTransformer<GetObjectResponse, GetObjectResponse>) (response, body) -> {
                    n[0] = SegmentStreams.fillAll(body, memory.segment().asSlice(memoryOffset));
                    return response;
                }));
        return new RdmaResult<>(r, n[0], RdmaProtocol.HTTP, declined);
    }

    RdmaResult<PutObjectResponse> put(PutObjectRequest request, ClientMemory memory, long offset, long size,
            String declined) {
        MemorySegment body = Spans.slice(memory, offset, size);
        PutObjectResponse r = s3.putObject(request.toBuilder().contentLength(size).build(), bodyOf(body, size));
        return new RdmaResult<>(r, size, RdmaProtocol.HTTP, declined);
    }

    RdmaResult<UploadPartResponse> uploadPart(UploadPartRequest request, ClientMemory memory, long offset, long size,
            String declined) {
        MemorySegment body = Spans.slice(memory, offset, size);
        UploadPartResponse r = s3.uploadPart(request.toBuilder().contentLength(size).build(), bodyOf(body, size));
        return new RdmaResult<>(r, size, RdmaProtocol.HTTP, declined);
    }

    private static RequestBody bodyOf(MemorySegment body, long size) {
        return RequestBody.fromContentProvider(() -> SegmentStreams.reading(body), size, "application/octet-stream");
    }
}
