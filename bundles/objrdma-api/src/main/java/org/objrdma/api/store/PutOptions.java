package org.objrdma.api.store;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;

/**
 * How to write an object or part.
 *
 * @param attributes the object's headers (ignored for a part: an upload's come from its creation)
 * @param checksums  additional checksums to compute while streaming, store and return
 * @param verifier   called with the computed digests after the body ends, before the commit
 * @param condition  S3's conditional write, checked atomically with the commit of a whole object (ignored
 *                   for a part); a store that cannot keep it says so with
 *                   {@link ObjectStore#supportsConditionalWrites()} (since 2.2)
 */
public record PutOptions(ObjectAttributes attributes, Set<ChecksumAlgorithm> checksums, CommitVerifier verifier,
        WriteCondition condition) {
    /** Default headers, no additional checksums, no veto, unconditional. */
    public static final PutOptions DEFAULT = new PutOptions(ObjectAttributes.NONE, Set.of(), CommitVerifier.ACCEPT_ALL);

    public PutOptions {
        Objects.requireNonNull(attributes, "attributes");
        checksums = checksums.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(checksums));
        Objects.requireNonNull(verifier, "verifier");
        Objects.requireNonNull(condition, "condition");
    }

    /** Unconditional (the 2.1 form). */
    public PutOptions(ObjectAttributes attributes, Set<ChecksumAlgorithm> checksums, CommitVerifier verifier) {
        this(attributes, checksums, verifier, WriteCondition.NONE);
    }

    public PutOptions withAttributes(ObjectAttributes newAttributes) {
        return new PutOptions(newAttributes, checksums, verifier, condition);
    }

    public PutOptions withChecksums(Set<ChecksumAlgorithm> newChecksums) {
        return new PutOptions(attributes, newChecksums, verifier, condition);
    }

    public PutOptions withVerifier(CommitVerifier newVerifier) {
        return new PutOptions(attributes, checksums, newVerifier, condition);
    }

    /** @since 2.2 */
    public PutOptions withCondition(WriteCondition newCondition) {
        return new PutOptions(attributes, checksums, verifier, newCondition);
    }
}
