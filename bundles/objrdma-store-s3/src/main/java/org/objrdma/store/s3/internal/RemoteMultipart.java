package org.objrdma.store.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.Digests;
import org.objrdma.api.store.ListUploadsRequest;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.PartsPage;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.api.store.UploadInfo;
import org.objrdma.api.store.UploadsPage;
import org.objrdma.wire.SegmentStreams;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ListPartsResponse;
import software.amazon.awssdk.services.s3.model.MultipartUpload;
import software.amazon.awssdk.services.s3.model.Part;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;

/**
 * The SPI's multipart operations as the remote store's own multipart upload: the upload's checksum
 * algorithm is the remote upload's ({@code x-amz-checksum-algorithm}), each part carries its MD5 and
 * checksum as headers, and the part list of a completion is checked here against ListParts before the
 * remote completes it, so the SPI's errors come out exactly whatever the remote would have said.
 */
final class RemoteMultipart {
    private final S3Client s3;
    private final UploadRecords records;

    RemoteMultipart(S3Client s3, UploadRecords records) {
        this.s3 = s3;
        this.records = records;
    }

    UploadInfo create(String remoteBucket, String key, ObjectAttributes attributes, ChecksumAlgorithm algorithm)
            throws StoreException {
        try {
            var response = s3.createMultipartUpload(b -> {
                b.bucket(remoteBucket).key(key).metadata(ObjectMetadata.toRemote(attributes.userMetadata(), Map.of()))
                        .contentType(attributes.contentType()).contentEncoding(attributes.contentEncoding())
                        .contentDisposition(attributes.contentDisposition()).contentLanguage(attributes.contentLanguage())
                        .cacheControl(attributes.cacheControl()).overrideConfiguration(RemoteObjects.expiresHeader(attributes.expires()));
                if (algorithm != null) {
                    b.checksumAlgorithm(algorithm.s3Name());
                }
            });
            UploadInfo upload = new UploadInfo(key, response.uploadId(), Instant.now(), algorithm);
            records.record(remoteBucket, upload);
            return upload;
        } catch (SdkException e) {
            throw RemoteErrors.map(e, StoreError.NO_SUCH_BUCKET, "CreateMultipartUpload " + key);
        }
    }

    PartInfo uploadPart(String remoteBucket, String key, String uploadId, int partNumber, MemorySegment source,
            PutOptions options) throws StoreException {
        StoreLimits.validatePartNumber(partNumber);
        checkPartSize(source.byteSize());
        UploadInfo upload = describe(remoteBucket, key, uploadId);
        Digester digester = new Digester(algorithms(options, upload));
        digester.update(source);
        Digests digests = digester.finish();
        options.verifier().verify(digests);
        return send(remoteBucket, key, upload, partNumber, digests, () -> SegmentStreams.reading(source));
    }

    PartInfo uploadPart(String remoteBucket, String key, String uploadId, int partNumber, InputStream body, long length,
            PutOptions options) throws StoreException, IOException {
        StoreLimits.validatePartNumber(partNumber);
        UploadInfo upload = describe(remoteBucket, key, uploadId);
        try (Spool spool = new Spool(RemoteWritesLimits.PART_SPOOL_IN_MEMORY)) {
            Digests digests = BodyReader.drain(body, length, S3StoreSettings.MAX_PART, algorithms(options, upload), spool);
            options.verifier().verify(digests);
            return send(remoteBucket, key, upload, partNumber, digests, () -> spool.open(0, spool.length()));
        }
    }

    private static Set<ChecksumAlgorithm> algorithms(PutOptions options, UploadInfo upload) {
        Set<ChecksumAlgorithm> all = options.checksums().isEmpty() ? EnumSet.noneOf(ChecksumAlgorithm.class)
                : EnumSet.copyOf(options.checksums());
        if (upload.checksumAlgorithm() != null) {
            all.add(upload.checksumAlgorithm());
        }
        return all;
    }

    private static void checkPartSize(long size) throws StoreException {
        if (size > S3StoreSettings.MAX_PART) {
            throw new StoreException(StoreError.ENTITY_TOO_LARGE, "a part is at most 5 GiB, was " + size + " bytes");
        }
    }

    private PartInfo send(String remoteBucket, String key, UploadInfo upload, int partNumber, Digests digests,
            Supplier<InputStream> bytes) throws StoreException {
        UploadPartRequest.Builder request = UploadPartRequest.builder().bucket(remoteBucket).key(key)
                .uploadId(upload.uploadId()).partNumber(partNumber).contentLength(digests.length())
                .contentMD5(digests.md5Base64());
        ChecksumAlgorithm algorithm = upload.checksumAlgorithm();
        if (algorithm != null) {
            String value = digests.checksums().get(algorithm);
            switch (algorithm) {
                case CRC32 -> request.checksumCRC32(value);
                case CRC32C -> request.checksumCRC32C(value);
                case CRC64NVME -> request.checksumCRC64NVME(value);
                case SHA1 -> request.checksumSHA1(value);
                case SHA256 -> request.checksumSHA256(value);
            }
        }
        try {
            var answer = s3.uploadPart(request.build(),
                    RequestBody.fromContentProvider(bytes::get, digests.length(), "application/octet-stream"));
            if (algorithm != null) {
                records.recordPart(remoteBucket, upload.uploadId(), partNumber,
                        Map.of(algorithm, digests.checksums().get(algorithm)));
            }
            return new PartInfo(partNumber, Conditions.unquote(answer.eTag()), digests.length(), Instant.now(),
                    digests.checksums());
        } catch (SdkException e) {
            throw RemoteErrors.map(e, StoreError.NO_SUCH_UPLOAD, "UploadPart " + partNumber + " of " + key);
        }
    }

    /** The upload as the remote knows it (also proves it exists for this key). */
    UploadInfo describe(String remoteBucket, String key, String uploadId) throws StoreException {
        return records.lookup(remoteBucket, key, uploadId);
    }

    PartsPage page(String remoteBucket, String key, String uploadId, int marker, int maxParts) throws StoreException {
        UploadInfo upload = describe(remoteBucket, key, uploadId);
        ChecksumAlgorithm algorithm = upload.checksumAlgorithm();
        Map<Integer, Map<ChecksumAlgorithm, String>> recorded = algorithm == null ? Map.of()
                : records.parts(remoteBucket, uploadId);
        int wanted = Math.min(Math.max(maxParts, 0), 1000);
        // paged here, not by the remote: s3proxy answers part-number-marker with 501 NotImplemented, so the
        // remote is asked from the start and its own marker is used only to continue a truncated answer
        List<PartInfo> parts = new ArrayList<>();
        Integer remoteMarker = null;
        boolean more = false;
        while (true) {
            ListPartsResponse r;
            Integer from = remoteMarker;
            try {
                r = s3.listParts(b -> b.bucket(remoteBucket).key(key).uploadId(uploadId).partNumberMarker(from));
            } catch (SdkException e) {
                throw RemoteErrors.map(e, StoreError.NO_SUCH_UPLOAD, "ListParts of " + key);
            }
            for (Part p : r.parts()) {
                if (p.partNumber() <= marker) {
                    continue;
                }
                if (parts.size() == wanted) {
                    more = true;
                    break;
                }
                Map<ChecksumAlgorithm, String> checksums = new EnumMap<>(ChecksumAlgorithm.class);
                checksums.putAll(recorded.getOrDefault(p.partNumber(), Map.of()));
                checksums.putAll(partChecksums(p));
                parts.add(new PartInfo(p.partNumber(), Conditions.unquote(p.eTag()), p.size(), p.lastModified(), checksums));
            }
            if (more || !Boolean.TRUE.equals(r.isTruncated()) || r.nextPartNumberMarker() == null) {
                break;
            }
            remoteMarker = r.nextPartNumberMarker();
        }
        return new PartsPage(upload, parts, more, more ? parts.isEmpty() ? marker : parts.getLast().partNumber() : 0);
    }

    private static Map<ChecksumAlgorithm, String> partChecksums(Part p) {
        Map<ChecksumAlgorithm, String> out = new EnumMap<>(ChecksumAlgorithm.class);
        if (p.checksumCRC32() != null) {
            out.put(ChecksumAlgorithm.CRC32, p.checksumCRC32());
        }
        if (p.checksumCRC32C() != null) {
            out.put(ChecksumAlgorithm.CRC32C, p.checksumCRC32C());
        }
        if (p.checksumCRC64NVME() != null) {
            out.put(ChecksumAlgorithm.CRC64NVME, p.checksumCRC64NVME());
        }
        if (p.checksumSHA1() != null) {
            out.put(ChecksumAlgorithm.SHA1, p.checksumSHA1());
        }
        if (p.checksumSHA256() != null) {
            out.put(ChecksumAlgorithm.SHA256, p.checksumSHA256());
        }
        return out;
    }

    /** Every part of the upload by number, read through as many ListParts pages as it takes. */
    Map<Integer, PartInfo> allParts(String remoteBucket, String key, String uploadId) throws StoreException {
        Map<Integer, PartInfo> out = new HashMap<>();
        int marker = 0;
        while (true) {
            PartsPage page = page(remoteBucket, key, uploadId, marker, 1000);
            page.parts().forEach(p -> out.put(p.partNumber(), p));
            if (!page.truncated()) {
                return out;
            }
            marker = page.nextPartNumberMarker();
        }
    }

    /** The SPI's completion checks, against the parts the remote holds. */
    static void checkCompletion(List<CompletedPart> named, Map<Integer, PartInfo> held) throws StoreException {
        if (named.isEmpty()) {
            throw new StoreException(StoreError.MALFORMED_XML, "the part list is empty");
        }
        for (int i = 1; i < named.size(); i++) {
            if (named.get(i).partNumber() <= named.get(i - 1).partNumber()) {
                throw new StoreException(StoreError.INVALID_PART_ORDER, "the part list is not strictly ascending");
            }
        }
        for (int i = 0; i < named.size(); i++) {
            CompletedPart c = named.get(i);
            PartInfo p = held.get(c.partNumber());
            if (p == null || !p.etag().equals(Conditions.unquote(c.etag()))) {
                throw new StoreException(StoreError.INVALID_PART,
                        "part " + c.partNumber() + " was not uploaded or its ETag does not match");
            }
            for (Map.Entry<ChecksumAlgorithm, String> e : c.checksums().entrySet()) {
                if (!e.getValue().equals(p.checksums().get(e.getKey()))) {
                    throw new StoreException(StoreError.INVALID_PART,
                            "part " + c.partNumber() + ": the " + e.getKey().s3Name() + " checksum does not match");
                }
            }
            if (i < named.size() - 1 && p.size() < StoreLimits.MIN_PART_SIZE) {
                throw new StoreException(StoreError.ENTITY_TOO_SMALL, "part " + c.partNumber() + " is " + p.size()
                        + " bytes; every part but the last must be at least " + StoreLimits.MIN_PART_SIZE);
            }
        }
    }

    void complete(String remoteBucket, String key, String uploadId, ChecksumAlgorithm algorithm,
            List<CompletedPart> named, Map<Integer, PartInfo> held) throws StoreException {
        List<software.amazon.awssdk.services.s3.model.CompletedPart> parts = new ArrayList<>();
        for (CompletedPart c : named) {
            var b = software.amazon.awssdk.services.s3.model.CompletedPart.builder().partNumber(c.partNumber())
                    .eTag("\"" + Conditions.unquote(c.etag()) + "\"");
            String value = algorithm == null ? null : held.get(c.partNumber()).checksums().get(algorithm);
            if (value != null) {
                switch (algorithm) {
                    case CRC32 -> b.checksumCRC32(value);
                    case CRC32C -> b.checksumCRC32C(value);
                    case CRC64NVME -> b.checksumCRC64NVME(value);
                    case SHA1 -> b.checksumSHA1(value);
                    case SHA256 -> b.checksumSHA256(value);
                }
            }
            parts.add(b.build());
        }
        try {
            s3.completeMultipartUpload(b -> b.bucket(remoteBucket).key(key).uploadId(uploadId)
                    .multipartUpload(m -> m.parts(parts)));
        } catch (SdkException e) {
            throw RemoteErrors.map(e, StoreError.NO_SUCH_UPLOAD, "CompleteMultipartUpload of " + key);
        }
        records.forget(remoteBucket, uploadId);
    }

    void abort(String remoteBucket, String key, String uploadId) throws StoreException {
        describe(remoteBucket, key, uploadId);
        try {
            s3.abortMultipartUpload(b -> b.bucket(remoteBucket).key(key).uploadId(uploadId));
        } catch (SdkException e) {
            if (RemoteErrors.status(e) != 404) {
                throw RemoteErrors.map(e, StoreError.NO_SUCH_UPLOAD, "AbortMultipartUpload of " + key);
            }
        }
        records.forget(remoteBucket, uploadId);
    }

    UploadsPage list(String remoteBucket, ListUploadsRequest request) throws StoreException {
        try {
            var r = s3.listMultipartUploads(b -> b.bucket(remoteBucket).prefix(request.prefix())
                    .keyMarker(request.keyMarker()).uploadIdMarker(request.uploadIdMarker())
                    .maxUploads(Math.max(1, request.maxUploads())));
            List<UploadInfo> uploads = new ArrayList<>();
            for (MultipartUpload u : r.uploads()) {
                if (!afterKeyMarker(u.key(), request)) {
                    continue;
                }
                ChecksumAlgorithm a = u.checksumAlgorithmAsString() == null ? null
                        : ChecksumAlgorithm.fromS3Name(u.checksumAlgorithmAsString()).orElse(null);
                Instant initiated = u.initiated() == null ? Instant.EPOCH : u.initiated();
                if (a == null) {
                    // the remote does not report it: our record does (uploads made by other clients have none)
                    UploadInfo recorded = records.find(remoteBucket, u.uploadId()).orElse(null);
                    if (recorded != null) {
                        a = recorded.checksumAlgorithm();
                    }
                }
                uploads.add(new UploadInfo(u.key(), u.uploadId(), initiated, a));
            }
            boolean truncated = Boolean.TRUE.equals(r.isTruncated()) && request.maxUploads() > 0;
            return new UploadsPage(request.maxUploads() == 0 ? List.of() : uploads, truncated,
                    truncated ? r.nextKeyMarker() : null, truncated ? r.nextUploadIdMarker() : null);
        } catch (SdkException e) {
            throw RemoteErrors.map(e, StoreError.NO_SUCH_BUCKET, "ListMultipartUploads");
        }
    }

    /**
     * S3: with a key marker and no upload-id marker, only keys after the marker are listed. RGW 16.2 also lists the
     * marker key's own uploads; they are dropped here (the page can come out shorter, its markers stay right).
     */
    static boolean afterKeyMarker(String key, ListUploadsRequest request) {
        String marker = request.keyMarker();
        if (marker == null || marker.isEmpty() || request.uploadIdMarker() != null) {
            return true;
        }
        return Arrays.compareUnsigned(key.getBytes(StandardCharsets.UTF_8),
                marker.getBytes(StandardCharsets.UTF_8)) > 0;
    }

    /** Bounds of the spool a streamed part waits in for its verdict. */
    static final class RemoteWritesLimits {
        static final long PART_SPOOL_IN_MEMORY = 8L * 1024 * 1024;

        private RemoteWritesLimits() {
        }
    }
}
