package org.objrdma.api.store;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * The end of a committed write (put, copy, complete).
 *
 * @param etag         the new object's entity tag, without quotes
 * @param size         bytes
 * @param lastModified commit time
 * @param checksums    stored additional checksums, base64
 */
public record PutResult(String etag, long size, Instant lastModified, Map<ChecksumAlgorithm, String> checksums) {
    public PutResult {
        Objects.requireNonNull(etag, "etag");
        Objects.requireNonNull(lastModified, "lastModified");
        checksums = Map.copyOf(checksums);
    }
}
