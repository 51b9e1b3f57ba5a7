package org.objrdma.api.store;

import java.util.Map;
import java.util.Objects;

/**
 * One {@code <Part>} of a CompleteMultipartUpload request.
 *
 * @param partNumber the part
 * @param etag       the ETag UploadPart returned; quotes are ignored
 * @param checksums  checksums the client names for the part (checked if present), base64
 */
public record CompletedPart(int partNumber, String etag, Map<ChecksumAlgorithm, String> checksums) {
    public CompletedPart {
        Objects.requireNonNull(etag, "etag");
        checksums = Map.copyOf(checksums);
    }

    public CompletedPart(int partNumber, String etag) {
        this(partNumber, etag, Map.of());
    }
}
