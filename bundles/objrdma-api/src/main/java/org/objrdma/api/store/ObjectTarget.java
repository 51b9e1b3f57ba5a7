package org.objrdma.api.store;

import java.util.Objects;

/**
 * An object, or one part of a multipart upload.
 *
 * @param bucket     bucket name, not empty
 * @param key        object key, not empty
 * @param versionId  a specific version to read, or null for the current one
 * @param uploadId   multipart upload id for an upload-part, or null
 * @param partNumber part number 1..10000 with an upload id (or for a part GET), else 0
 */
public record ObjectTarget(String bucket, String key, String versionId, String uploadId, int partNumber) {
    /** Highest part number S3 allows. */
    public static final int MAX_PART_NUMBER = 10_000;

    public ObjectTarget {
        if (bucket == null || bucket.isEmpty() || key == null || key.isEmpty()) {
            throw new IllegalArgumentException("bucket and key must not be empty");
        }
        if (partNumber < 0 || partNumber > MAX_PART_NUMBER) {
            throw new IllegalArgumentException("part number must be 0..10000, was " + partNumber);
        }
        if (uploadId != null && partNumber == 0) {
            throw new IllegalArgumentException("an upload id needs a part number");
        }
    }

    /** The current version of {@code bucket/key}. */
    public static ObjectTarget of(String bucket, String key) {
        return new ObjectTarget(bucket, key, null, null, 0);
    }

    /** Part {@code partNumber} of multipart upload {@code uploadId}. */
    public static ObjectTarget part(String bucket, String key, String uploadId, int partNumber) {
        Objects.requireNonNull(uploadId, "uploadId");
        if (partNumber < 1) {
            throw new IllegalArgumentException("part numbers start at 1");
        }
        return new ObjectTarget(bucket, key, null, uploadId, partNumber);
    }

    /** {@code /bucket/key}, the canonical target without query. */
    public String path() {
        return "/" + bucket + "/" + key;
    }
}
