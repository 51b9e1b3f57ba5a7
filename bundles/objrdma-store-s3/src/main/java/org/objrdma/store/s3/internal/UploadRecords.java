package org.objrdma.store.s3.internal;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.UploadInfo;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * What the SPI knows about a multipart upload and not every S3 service reports back: the key it belongs
 * to, its checksum algorithm, when it began, and each part's checksum. Kept in the system bucket
 * ({@code uploads/<remote bucket>/<upload id>} and {@code .../<part number>}), so every gateway sees the
 * same; removed when the upload completes or is aborted. An upload id with no record is NoSuchUpload.
 */
final class UploadRecords {
    /** Upload ids as S3 services issue them; anything else (a path, say) is refused before any lookup. */
    private static final Pattern UPLOAD_ID = Pattern.compile("[A-Za-z0-9._~=+\\-]{1,1024}");

    private final S3Client s3;
    private final String systemBucket;

    UploadRecords(S3Client s3, String systemBucket) {
        this.s3 = s3;
        this.systemBucket = systemBucket;
    }

    private static String prefix(String remoteBucket, String uploadId) {
        return "uploads/" + remoteBucket + "/" + uploadId;
    }

    /** Apart from the upload's record: a file-backed S3 service cannot hold a key and a key below it. */
    private static String partsPrefix(String remoteBucket, String uploadId) {
        return "upload-parts/" + remoteBucket + "/" + uploadId + "/";
    }

    void record(String remoteBucket, UploadInfo upload) throws StoreException {
        String body = (upload.checksumAlgorithm() == null ? "-" : upload.checksumAlgorithm().s3Name()) + "\n"
                + upload.initiated().toEpochMilli() + "\n" + upload.key();
        put(prefix(remoteBucket, upload.uploadId()), body);
    }

    /** @throws StoreException NO_SUCH_UPLOAD when there is no such upload of {@code key} */
    UploadInfo lookup(String remoteBucket, String key, String uploadId) throws StoreException {
        UploadInfo found = find(remoteBucket, uploadId).orElse(null);
        if (found == null || !found.key().equals(key)) {
            throw new StoreException(StoreError.NO_SUCH_UPLOAD, "there is no upload " + uploadId + " of " + key);
        }
        return found;
    }

    Optional<UploadInfo> find(String remoteBucket, String uploadId) throws StoreException {
        if (uploadId == null || !UPLOAD_ID.matcher(uploadId).matches() || uploadId.contains("..")) {
            return Optional.empty();
        }
        Optional<String> body = get(prefix(remoteBucket, uploadId));
        if (body.isEmpty()) {
            return Optional.empty();
        }
        String[] lines = body.get().split("\n", 3);
        ChecksumAlgorithm algorithm = lines[0].equals("-") ? null : ChecksumAlgorithm.fromS3Name(lines[0]).orElse(null);
        return Optional.of(new UploadInfo(lines[2], uploadId, Instant.ofEpochMilli(Long.parseLong(lines[1])), algorithm));
    }

    void recordPart(String remoteBucket, String uploadId, int partNumber, Map<ChecksumAlgorithm, String> checksums)
            throws StoreException {
        StringBuilder sb = new StringBuilder();
        checksums.forEach((a, v) -> sb.append(a.s3Name()).append('=').append(v).append('\n'));
        put(partsPrefix(remoteBucket, uploadId) + partNumber, sb.toString());
    }

    /** Each recorded part's checksums, by part number. */
    Map<Integer, Map<ChecksumAlgorithm, String>> parts(String remoteBucket, String uploadId) throws StoreException {
        String partsPrefix = partsPrefix(remoteBucket, uploadId);
        Map<Integer, Map<ChecksumAlgorithm, String>> out = new java.util.HashMap<>();
        try {
            for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(systemBucket).prefix(partsPrefix)).contents()) {
                Map<ChecksumAlgorithm, String> values = new EnumMap<>(ChecksumAlgorithm.class);
                for (String line : get(o.key()).orElse("").split("\n")) {
                    int eq = line.indexOf('=');
                    if (eq > 0) {
                        ChecksumAlgorithm.fromS3Name(line.substring(0, eq)).ifPresent(a -> values.put(a, line.substring(eq + 1)));
                    }
                }
                out.put(Integer.parseInt(o.key().substring(partsPrefix.length())), values);
            }
        } catch (SdkException e) {
            throw RemoteErrors.map(e, StoreError.INTERNAL_ERROR, "upload records of " + uploadId);
        }
        return out;
    }

    void forget(String remoteBucket, String uploadId) throws StoreException {
        try {
            for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(systemBucket)
                    .prefix(partsPrefix(remoteBucket, uploadId))).contents()) {
                s3.deleteObject(b -> b.bucket(systemBucket).key(o.key()));
            }
            s3.deleteObject(b -> b.bucket(systemBucket).key(prefix(remoteBucket, uploadId)));
        } catch (SdkException e) {
            throw RemoteErrors.map(e, StoreError.INTERNAL_ERROR, "removing the records of upload " + uploadId);
        }
    }

    private void put(String key, String body) throws StoreException {
        try {
            s3.putObject(b -> b.bucket(systemBucket).key(key), RequestBody.fromString(body, StandardCharsets.UTF_8));
        } catch (SdkException e) {
            throw RemoteErrors.map(e, StoreError.INTERNAL_ERROR, "writing the upload record " + key);
        }
    }

    private Optional<String> get(String key) throws StoreException {
        try {
            return Optional.of(s3.getObject(b -> b.bucket(systemBucket).key(key), ResponseTransformer.toBytes())
                    .asString(StandardCharsets.UTF_8));
        } catch (SdkException e) {
            if (RemoteErrors.status(e) == 404) {
                return Optional.empty();
            }
            throw RemoteErrors.map(e, StoreError.INTERNAL_ERROR, "reading the upload record " + key);
        }
    }
}
