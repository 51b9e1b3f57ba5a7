package org.objrdma.api.store;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;

/**
 * An uploaded part (UploadPart's answer and a ListParts entry).
 *
 * @param partNumber   1..10000
 * @param etag         MD5 hex of the part, without quotes
 * @param size         bytes
 * @param lastModified when the part was committed
 * @param checksums    the part's additional checksums, base64
 */
public record PartInfo(int partNumber, String etag, long size, Instant lastModified,
        Map<ChecksumAlgorithm, String> checksums) {
    public PartInfo {
        Objects.requireNonNull(etag, "etag");
        Objects.requireNonNull(lastModified, "lastModified");
        checksums = Map.copyOf(checksums);
    }
}
