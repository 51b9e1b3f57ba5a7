package org.objrdma.api.store;

import java.time.Instant;
import java.util.Objects;

/**
 * A multipart upload in progress.
 *
 * @param key               the key it will complete to
 * @param uploadId          opaque id
 * @param initiated         creation time
 * @param checksumAlgorithm the algorithm every part is checksummed with (composite at complete), or null
 */
public record UploadInfo(String key, String uploadId, Instant initiated, ChecksumAlgorithm checksumAlgorithm) {
    public UploadInfo {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(uploadId, "uploadId");
        Objects.requireNonNull(initiated, "initiated");
    }
}
