package org.objrdma.api.store;

import java.time.Instant;
import java.util.Objects;

/**
 * A bucket.
 *
 * @param name    the bucket name
 * @param created creation time
 * @param owner   access key id of the creator
 */
public record BucketInfo(String name, Instant created, String owner) {
    public BucketInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(created, "created");
        Objects.requireNonNull(owner, "owner");
    }
}
