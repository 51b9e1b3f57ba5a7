package org.objrdma.api.store;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * What HEAD tells about one version of an object.
 *
 * @param key          the key
 * @param size         bytes
 * @param etag         entity tag without quotes: MD5 hex of the bytes for a single put, hex MD5 of the
 *                     concatenated part MD5s then {@code -N} for a multipart upload of N parts
 * @param lastModified when the version was committed (millisecond precision; HTTP compares seconds)
 * @param attributes   the headers the writer gave
 * @param checksums    stored additional checksums, base64 (composite {@code base64-N} for multipart)
 * @param partsCount   parts of a multipart upload, 0 for a single put
 */
public record ObjectInfo(String key, long size, String etag, Instant lastModified, ObjectAttributes attributes,
        Map<ChecksumAlgorithm, String> checksums, int partsCount) {
    public ObjectInfo {
        Objects.requireNonNull(key, "key");
        if (size < 0) {
            throw new IllegalArgumentException("size must not be negative");
        }
        Objects.requireNonNull(etag, "etag");
        Objects.requireNonNull(lastModified, "lastModified");
        Objects.requireNonNull(attributes, "attributes");
        checksums = Map.copyOf(checksums);
        if (partsCount < 0) {
            throw new IllegalArgumentException("partsCount must not be negative");
        }
    }
}
