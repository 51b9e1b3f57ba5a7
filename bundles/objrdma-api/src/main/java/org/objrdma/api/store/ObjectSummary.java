package org.objrdma.api.store;

import java.time.Instant;
import java.util.Objects;

/**
 * One entry of a ListObjectsV2 page.
 *
 * @param key          the key
 * @param size         bytes
 * @param etag         entity tag without quotes
 * @param lastModified commit time
 */
public record ObjectSummary(String key, long size, String etag, Instant lastModified) {
    public ObjectSummary {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(etag, "etag");
        Objects.requireNonNull(lastModified, "lastModified");
    }
}
