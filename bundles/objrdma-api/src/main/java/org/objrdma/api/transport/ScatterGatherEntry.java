package org.objrdma.api.transport;

import java.util.Objects;

/**
 * One piece of local memory a work request reads from or writes into: an {@code ibv_sge} that
 * refers to its region instead of repeating address and lkey.
 *
 * @param region registered local memory
 * @param offset offset into the region
 * @param length bytes, at most 2^31 - 1 as in verbs
 */
public record ScatterGatherEntry(MemoryRegion region, long offset, int length) {
    public ScatterGatherEntry {
        Objects.requireNonNull(region, "region");
        if (offset < 0 || length < 0 || offset > region.length() || length > region.length() - offset) {
            throw new IndexOutOfBoundsException(
                    "sge [" + offset + ", +" + length + ") outside region of " + region.length() + " bytes");
        }
    }

    /** The whole region, which must be shorter than 2 GiB. */
    public static ScatterGatherEntry of(MemoryRegion region) {
        return new ScatterGatherEntry(region, 0, Math.toIntExact(region.length()));
    }

    /** Local address of the first byte. */
    public long address() {
        return region.address() + offset;
    }

    /** The region's local key. */
    public int lkey() {
        return region.lkey();
    }
}
