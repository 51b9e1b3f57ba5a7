package org.objrdma.api.transport;

/**
 * A peer's registered memory as the peer described it: where it starts, how long it is and the
 * key that opens it. A value; it proves nothing — the side that owns the memory checks every access.
 *
 * @param address start address in the peer's address space
 * @param length  length in bytes, not negative
 * @param rkey    remote key
 */
public record RemoteRegion(long address, long length, int rkey) {
    public RemoteRegion {
        if (length < 0) {
            throw new IllegalArgumentException("length must not be negative: " + length);
        }
    }

    /** True if {@code [addr, addr + len)} lies inside this region, without overflow. */
    public boolean contains(long addr, long len) {
        if (len < 0) {
            return false;
        }
        long offset = addr - address;
        // unsigned comparisons: an address below the start wraps to a huge offset
        return Long.compareUnsigned(offset, length) <= 0
                && Long.compareUnsigned(len, length - offset) <= 0;
    }

    /** The sub-range starting {@code offset} bytes in, {@code len} bytes long. */
    public RemoteRegion slice(long offset, long len) {
        if (offset < 0 || len < 0 || offset > length || len > length - offset) {
            throw new IndexOutOfBoundsException("slice [" + offset + ", +" + len + ") outside length " + length);
        }
        return new RemoteRegion(address + offset, len, rkey);
    }
}
