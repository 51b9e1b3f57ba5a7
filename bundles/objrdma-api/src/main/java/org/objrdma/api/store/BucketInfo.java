package org.objrdma.api.store;

import java.time.Instant;
import java.util.Objects;

/**
 * A bucket.
 *
 * @param name    the bucket name
 * @param created creation time
 * @param owner   access key id of the creator
 * @param acl     the bucket's canned ACL; {@link CannedAcl#PRIVATE} when null is given (since 2.4)
 */
public record BucketInfo(String name, Instant created, String owner, CannedAcl acl) {
    public BucketInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(created, "created");
        Objects.requireNonNull(owner, "owner");
        acl = acl == null ? CannedAcl.PRIVATE : acl;
    }

    /** A private bucket (the 2.3 form). */
    public BucketInfo(String name, Instant created, String owner) {
        this(name, created, owner, CannedAcl.PRIVATE);
    }

    /** This bucket with the ACL {@code newAcl}. @since 2.4 */
    public BucketInfo withAcl(CannedAcl newAcl) {
        return new BucketInfo(name, created, owner, newAcl);
    }
}
