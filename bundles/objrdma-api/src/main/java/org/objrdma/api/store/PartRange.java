package org.objrdma.api.store;

/**
 * Where one part of an object version lies, as GET / HEAD {@code ?partNumber=N} serve it: {@code length}
 * bytes from {@code offset}.
 *
 * @param partNumber the part, 1-based
 * @param partsCount how many parts the version can be addressed by (1 for an object from a single put)
 * @param offset     the part's first byte in the object
 * @param length     bytes; 0 only for an empty object or an empty last part
 */
public record PartRange(int partNumber, int partsCount, long offset, long length) {
    public PartRange {
        if (partsCount < 1 || partNumber < 1 || partNumber > partsCount) {
            throw new IllegalArgumentException("part " + partNumber + " of " + partsCount + " is not a part");
        }
        if (offset < 0 || length < 0) {
            throw new IllegalArgumentException("a part has a non-negative offset and length");
        }
    }

    /** Part 1 of 1: the whole object of {@code size} bytes (what a single put is addressed as). */
    public static PartRange whole(long size) {
        return new PartRange(1, 1, 0, size);
    }

    /** The last byte's offset, as a Content-Range prints it (meaningless for an empty part). */
    public long last() {
        return offset + length - 1;
    }

    /**
     * The error S3 answers for a part number past the last part (or above 1 for a single put).
     *
     * @return INVALID_PART_NUMBER, to throw
     */
    public static StoreException notSatisfiable(int partNumber, int partsCount) {
        return new StoreException(StoreError.INVALID_PART_NUMBER, "the requested partnumber " + partNumber
                + " is not satisfiable: the object has " + partsCount + (partsCount == 1 ? " part" : " parts"));
    }
}
