package org.objrdma.staging.internal;

/**
 * The size classes of a pool: every power of two from the smallest to the largest buffer size. A request
 * is served from the smallest class that holds it.
 */
final class SizeClasses {

    private final int minShift;
    private final long[] sizes;
    /** The class sizes boxed once: they are the Commons Pool keys, looked up on every borrow. */
    private final Long[] keys;

    SizeClasses(long minBufferSize, long maxBufferSize) {
        this.minShift = Long.numberOfTrailingZeros(minBufferSize);
        int count = Long.numberOfTrailingZeros(maxBufferSize) - minShift + 1;
        this.sizes = new long[count];
        this.keys = new Long[count];
        for (int i = 0; i < count; i++) {
            sizes[i] = minBufferSize << i;
            keys[i] = sizes[i];
        }
    }

    int count() {
        return sizes.length;
    }

    /** The class for {@code size}, which must be 1 to the largest class size. */
    int indexFor(long size) {
        int ceilShift = 64 - Long.numberOfLeadingZeros(size - 1);
        return Math.max(0, ceilShift - minShift);
    }

    long size(int index) {
        return sizes[index];
    }

    Long key(int index) {
        return keys[index];
    }

    long largest() {
        return sizes[sizes.length - 1];
    }
}
