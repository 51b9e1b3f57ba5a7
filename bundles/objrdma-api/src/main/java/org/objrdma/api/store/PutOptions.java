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
 */
public record PutOptions(ObjectAttributes attributes, Set<ChecksumAlgorithm> checksums, CommitVerifier verifier) {
    /** Default headers, no additional checksums, no veto. */
    public static final PutOptions DEFAULT = new PutOptions(ObjectAttributes.NONE, Set.of(), CommitVerifier.ACCEPT_ALL);

    public PutOptions {
        Objects.requireNonNull(attributes, "attributes");
        checksums = checksums.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(checksums));
        Objects.requireNonNull(verifier, "verifier");
    }

    public PutOptions withAttributes(ObjectAttributes newAttributes) {
        return new PutOptions(newAttributes, checksums, verifier);
    }

    public PutOptions withChecksums(Set<ChecksumAlgorithm> newChecksums) {
        return new PutOptions(attributes, newChecksums, verifier);
    }

    public PutOptions withVerifier(CommitVerifier newVerifier) {
        return new PutOptions(attributes, checksums, newVerifier);
    }
}
