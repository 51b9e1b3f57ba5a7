package org.objrdma.verbs.internal.transport.dc;

import java.util.Objects;

/**
 * One DC target's memory as its descriptor grants it: the peer port, the DC target number and the one region the
 * initiator may touch, with the rkey that region carries. A request outside {@code [regionAddress, +regionSize)} is
 * refused before anything is posted; the target's NIC enforces the same bound with the rkey.
 *
 * @param peer          the target's port
 * @param dctn          the DC target number, 24 bits
 * @param regionAddress the granted region's first byte (target virtual address)
 * @param regionSize    its size in bytes
 * @param rkey          the region's remote key
 */
public record DcTargetAddress(DcPeer peer, int dctn, long regionAddress, long regionSize, int rkey) {
    public DcTargetAddress {
        Objects.requireNonNull(peer, "peer");
        if ((dctn & ~0xFF_FFFF) != 0) {
            throw new IllegalArgumentException("a DC target number is 24 bits, was " + dctn);
        }
        // address + size may reach 2^64 but not pass it
        if (regionSize < 0 || (regionSize > 0 && Long.compareUnsigned(regionAddress, -regionSize) > 0)) {
            throw new IllegalArgumentException("the region [0x" + Long.toHexString(regionAddress) + ", +" + regionSize
                    + ") wraps or has a negative size");
        }
    }

    /** True if {@code [address, address + length)} lies inside the granted region (no overflow). */
    public boolean covers(long address, long length) {
        if (length < 0) {
            return false;
        }
        long offset = address - regionAddress;
        return Long.compareUnsigned(address, regionAddress) >= 0
                && Long.compareUnsigned(offset, regionSize) <= 0
                && Long.compareUnsigned(length, regionSize - offset) <= 0;
    }
}
