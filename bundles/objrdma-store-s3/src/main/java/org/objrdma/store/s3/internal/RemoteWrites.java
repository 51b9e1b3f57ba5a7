package org.objrdma.store.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongFunction;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.Digests;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.wire.SegmentStreams;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * Whole-object writes with the commit veto kept: the digests are computed first (over the staging
 * segment, or while a stream is spooled), the verifier runs, and only then do the bytes go to the remote
 * store — one PutObject up to the multipart threshold, else a multipart upload of configured part size
 * completed at the end (aborted on any failure), so nothing is ever visible remotely that the verifier
 * did not accept.
 */
final class RemoteWrites {
    private final S3Client s3;
    private final S3Client streaming;
    private final long threshold;
    private final long partSize;

    private final PartLayouts layouts;

    /** @param streaming the client of streamed puts ({@link RemoteClients.Remote#streaming()}) */
    RemoteWrites(S3Client s3, S3Client streaming, long threshold, long partSize, PartLayouts layouts) {
        this.s3 = s3;
        this.streaming = streaming;
        this.layouts = layouts;
        this.threshold = threshold;
        this.partSize = partSize;
    }

    PutResult put(String remoteBucket, String key, MemorySegment source, PutOptions options) throws StoreException {
        checkSize(source.byteSize());
        Digester digester = new Digester(options.checksums());
        digester.update(source);
        Digests digests = digester.finish();
        options.verifier().verify(digests);
        return send(remoteBucket, key, options.attributes(), digests,
                (offset) -> SegmentStreams.reading(source.asSlice(offset)));
    }

    PutResult put(String remoteBucket, String key, InputStream body, long length, PutOptions options)
            throws StoreException, IOException {
        // streamed only without additional checksums: the adapter stores those in the object's metadata, a header
        // that leaves before the body, when they are not known yet
        if (length > 0 && length <= threshold && options.checksums().isEmpty()) {
            return streamed(remoteBucket, key, body, length, options);
        }
        try (Spool spool = new Spool(threshold)) {
            Digests digests = BodyReader.drain(body, length, StoreLimits.MAX_OBJECT_SIZE, options.checksums(), spool);
            options.verifier().verify(digests);
            return send(remoteBucket, key, options.attributes(), digests, offset -> spool.open(offset, spool.length() - offset));
        }
    }

    /**
     * A body of known length up to the threshold, with no additional checksum to store, goes to the remote store
     * while it arrives, one PutObject, no spool: {@link VerifiedBody} holds its last bytes back until the length and the verifier accepted it, so a
     * refused body leaves the remote request short and nothing is committed. No Content-MD5 (unknown before the
     * end): the aws-chunked chunk signatures carry the integrity of every chunk to the remote instead.
     */
    private PutResult streamed(String remoteBucket, String key, InputStream body, long length, PutOptions options)
            throws StoreException, IOException {
        ObjectAttributes attributes = options.attributes();
        VerifiedBody verified = new VerifiedBody(body, length, options.checksums(), options.verifier());
        PutObjectRequest.Builder request = PutObjectRequest.builder().bucket(remoteBucket).key(key).contentLength(length)
                .contentType(attributes.contentType()).contentEncoding(attributes.contentEncoding())
                .contentDisposition(attributes.contentDisposition()).contentLanguage(attributes.contentLanguage())
                .cacheControl(attributes.cacheControl()).overrideConfiguration(RemoteObjects.expiresHeader(attributes.expires()));
        request.metadata(ObjectMetadata.toRemote(attributes.userMetadata(), Map.of()));
        try {
            var response = streaming.putObject(request.build(),
                    RequestBody.fromContentProvider(verified, length, attributes.contentType()));
            Digests digests = verified.digests();
            if (digests == null) {
                throw new StoreException(StoreError.INTERNAL_ERROR, "the remote store answered PUT " + key
                        + " before the whole body was sent");
            }
            return new PutResult(stripQuotes(response.eTag()), length, Instant.now(), digests.checksums());
        } catch (SdkException e) {
            VerifiedBody.Refused refused = VerifiedBody.Refused.in(e);
            if (refused != null) {
                refused.rethrow();
            }
            throw RemoteErrors.map(e, StoreError.NO_SUCH_BUCKET, "PUT " + key);
        } catch (VerifiedBody.Refused refused) {
            refused.rethrow();
            throw new AssertionError(refused);
        }
    }

    static void checkSize(long size) throws StoreException {
        if (size > StoreLimits.MAX_OBJECT_SIZE) {
            throw new StoreException(StoreError.ENTITY_TOO_LARGE,
                    "the object of " + size + " bytes exceeds the maximum of " + StoreLimits.MAX_OBJECT_SIZE);
        }
    }

    /** @param bytesFrom a fresh stream of the object's bytes from an offset to the end */
    private PutResult send(String remoteBucket, String key, ObjectAttributes attributes, Digests digests,
            LongFunction<InputStream> bytesFrom) throws StoreException {
        Map<String, String> metadata = ObjectMetadata.toRemote(attributes.userMetadata(), digests.checksums());
        long size = digests.length();
        try {
            if (size <= threshold) { // one PutObject up to the threshold itself: a client's 64 MiB PUT stays one request
                PutObjectRequest request = PutObjectRequest.builder().bucket(remoteBucket).key(key)
                        .contentLength(size).contentMD5(digests.md5Base64()).metadata(metadata)
                        .contentType(attributes.contentType()).contentEncoding(attributes.contentEncoding())
                        .contentDisposition(attributes.contentDisposition()).contentLanguage(attributes.contentLanguage())
                        .cacheControl(attributes.cacheControl()).overrideConfiguration(RemoteObjects.expiresHeader(attributes.expires())).build();
                var response = s3.putObject(request,
                        RequestBody.fromContentProvider(() -> bytesFrom.apply(0), size, attributes.contentType()));
                return new PutResult(stripQuotes(response.eTag()), size, Instant.now(), digests.checksums());
            }
            return multipart(remoteBucket, key, attributes, metadata, digests, bytesFrom);
        } catch (SdkException e) {
            throw RemoteErrors.map(e, StoreError.NO_SUCH_BUCKET, "PUT " + key);
        }
    }

    private PutResult multipart(String remoteBucket, String key, ObjectAttributes attributes, Map<String, String> metadata,
            Digests digests, LongFunction<InputStream> bytesFrom) throws StoreException {
        CreateMultipartUploadRequest create = CreateMultipartUploadRequest.builder().bucket(remoteBucket).key(key)
                .metadata(metadata).contentType(attributes.contentType()).contentEncoding(attributes.contentEncoding())
                .contentDisposition(attributes.contentDisposition()).contentLanguage(attributes.contentLanguage())
                .cacheControl(attributes.cacheControl()).overrideConfiguration(RemoteObjects.expiresHeader(attributes.expires())).build();
        String uploadId = s3.createMultipartUpload(create).uploadId();
        boolean completed = false;
        try {
            List<CompletedPart> parts = new ArrayList<>();
            long size = digests.length();
            int number = 1;
            for (long offset = 0; offset < size; offset += partSize, number++) {
                long length = Math.min(partSize, size - offset);
                long from = offset;
                int partNumber = number;
                var answer = s3.uploadPart(b -> b.bucket(remoteBucket).key(key).uploadId(uploadId)
                        .partNumber(partNumber).contentLength(length),
                        RequestBody.fromContentProvider(() -> limited(bytesFrom.apply(from), length), length,
                                "application/octet-stream"));
                parts.add(CompletedPart.builder().partNumber(partNumber).eTag(answer.eTag()).build());
            }
            var done = s3.completeMultipartUpload(b -> b.bucket(remoteBucket).key(key).uploadId(uploadId)
                    .multipartUpload(m -> m.parts(parts)));
            completed = true;
            String etag = stripQuotes(done.eTag());
            // the remote's ETag says N parts: record their sizes so ?partNumber= answers what that ETag promises
            List<Long> sizes = new ArrayList<>();
            for (long offset = 0; offset < size; offset += partSize) {
                sizes.add(Math.min(partSize, size - offset));
            }
            layouts.record(remoteBucket, key, etag, sizes);
            return new PutResult(etag, size, Instant.now(), digests.checksums());
        } finally {
            if (!completed) {
                abortQuietly(remoteBucket, key, uploadId);
            }
        }
    }

    void abortQuietly(String remoteBucket, String key, String uploadId) {
        try {
            s3.abortMultipartUpload(b -> b.bucket(remoteBucket).key(key).uploadId(uploadId));
        } catch (SdkException ignored) {
            // the remote store's lifecycle rules clean up what a lost abort leaves (see README)
        }
    }

    static InputStream limited(InputStream in, long length) {
        return new java.io.FilterInputStream(in) {
            private long left = length;

            @Override
            public int read() throws IOException {
                if (left <= 0) {
                    return -1;
                }
                int b = super.read();
                left -= b < 0 ? 0 : 1;
                return b;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (left <= 0) {
                    return -1;
                }
                int n = super.read(b, off, (int) Math.min(len, left));
                left -= Math.max(n, 0);
                return n;
            }
        };
    }

    static String stripQuotes(String etag) {
        return org.objrdma.api.store.Conditions.unquote(etag);
    }

}
