package org.objrdma.api.store;

import java.util.Locale;
import java.util.Optional;

/**
 * The canned ACLs this SPI stores with a bucket or an object: S3's names, what each grants beyond the owner's
 * FULL_CONTROL. An object written by anyone is owned by its bucket's owner, so {@code bucket-owner-read} and
 * {@code bucket-owner-full-control} grant nothing beyond {@link #PRIVATE} here; they are kept so GetObjectAcl
 * names what was set. S3's {@code aws-exec-read} and {@code log-delivery-write} name AWS services and are not
 * members.
 *
 * @since 2.4
 */
public enum CannedAcl {
    /** The owner only (S3's default). */
    PRIVATE("private"),
    /** Everyone (anonymous included) may read: an object's bytes, a bucket's listing. */
    PUBLIC_READ("public-read"),
    /** Everyone may read, and write into a bucket. */
    PUBLIC_READ_WRITE("public-read-write"),
    /** Every signed-in user of the store may read. */
    AUTHENTICATED_READ("authenticated-read"),
    /** The owner and the bucket's owner may read (the same principal here). */
    BUCKET_OWNER_READ("bucket-owner-read"),
    /** The owner and the bucket's owner have full control (the same principal here). */
    BUCKET_OWNER_FULL_CONTROL("bucket-owner-full-control");

    private final String s3Name;

    CannedAcl(String s3Name) {
        this.s3Name = s3Name;
    }

    /** The {@code x-amz-acl} value. */
    public String s3Name() {
        return s3Name;
    }

    /** The member named {@code name} ({@code x-amz-acl}'s value, any case), or empty. */
    public static Optional<CannedAcl> of(String name) {
        String n = name.strip().toLowerCase(Locale.ROOT);
        for (CannedAcl a : values()) {
            if (a.s3Name.equals(n)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    /** Whether this ACL lets a principal other than the owner read ({@code authenticated}: one with a key). */
    public boolean grantsReadTo(boolean authenticated) {
        return switch (this) {
            case PUBLIC_READ, PUBLIC_READ_WRITE -> true;
            case AUTHENTICATED_READ -> authenticated;
            default -> false;
        };
    }

    /** Whether this ACL lets anyone, anonymous included, write (into a bucket). */
    public boolean grantsWriteToEveryone() {
        return this == PUBLIC_READ_WRITE;
    }

    /** Whether this ACL grants anything to someone other than the owner (what Block Public Access calls public). */
    public boolean isPublic() {
        return this == PUBLIC_READ || this == PUBLIC_READ_WRITE || this == AUTHENTICATED_READ;
    }
}
