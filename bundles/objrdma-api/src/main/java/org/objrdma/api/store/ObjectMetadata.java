package org.objrdma.api.store;

import java.time.Instant;
import java.util.Objects;

/**
 * What HEAD tells about an object.
 *
 * @param size         bytes
 * @param etag         entity tag as S3 prints it (quotes not included)
 * @param versionId    version id, empty if the store does not version
 * @param lastModified last write
 * @param contentType  media type, {@code application/octet-stream} if unknown
 */
public record ObjectMetadata(long size, String etag, String versionId, Instant lastModified, String contentType) {
    public ObjectMetadata {
        if (size < 0) {
            throw new IllegalArgumentException("size must not be negative");
        }
        Objects.requireNonNull(etag, "etag");
        Objects.requireNonNull(versionId, "versionId");
        Objects.requireNonNull(lastModified, "lastModified");
        Objects.requireNonNull(contentType, "contentType");
    }
}
