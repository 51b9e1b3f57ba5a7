package org.objrdma.telemetry.internal;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAccumulator;
import org.objrdma.api.telemetry.LatencySnapshot;

/**
 * A log-linear histogram of non-negative longs: values below 32 have a bucket each, every power of two
 * above is split into 16 equal buckets, so a bucket's width is at most 1/16 of its lower edge (6.25 %).
 * 960 fixed buckets cover every positive long. Recording is one atomic add and one max accumulation, no
 * lock and no allocation; a snapshot walks the buckets, so its count and percentiles agree with each other
 * even while values arrive.
 */
final class LatencyHistogram {

    private static final int SUB_BITS = 4;
    private static final int SUB_BUCKETS = 1 << SUB_BITS;
    static final int BUCKETS = (Long.SIZE - SUB_BITS) * SUB_BUCKETS;

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
    private final LongAccumulator max = new LongAccumulator(Math::max, 0);

    /** @throws IllegalArgumentException for a negative value, recording nothing */
    void record(long value) {
        if (value < 0) {
            throw new IllegalArgumentException("a duration is not negative, was " + value);
        }
        counts.incrementAndGet(index(value));
        max.accumulate(value);
    }

    LatencySnapshot snapshot() {
        long[] copy = new long[BUCKETS];
        long count = 0;
        for (int i = 0; i < BUCKETS; i++) {
            copy[i] = counts.get(i);
            count += copy[i];
        }
        if (count == 0) {
            return LatencySnapshot.EMPTY;
        }
        long highest = max.get();
        return new LatencySnapshot(count, Math.min(percentile(copy, count, 0.50), highest),
                Math.min(percentile(copy, count, 0.99), highest), highest);
    }

    /** The upper edge of the bucket that holds the value of rank ceil(fraction * count). */
    private static long percentile(long[] buckets, long count, double fraction) {
        long rank = Math.max(1, (long) Math.ceil(fraction * count));
        long seen = 0;
        for (int i = 0; i < buckets.length; i++) {
            seen += buckets[i];
            if (seen >= rank) {
                return upperEdge(i);
            }
        }
        return upperEdge(buckets.length - 1);
    }

    static int index(long value) {
        int msb = 63 - Long.numberOfLeadingZeros(value);
        if (msb <= SUB_BITS) {
            return (int) value; // 0..31: one bucket per value
        }
        int shift = msb - SUB_BITS;
        int mantissa = (int) (value >>> shift); // 16..31
        return (shift + 1) * SUB_BUCKETS + mantissa - SUB_BUCKETS;
    }

    static long lowerEdge(int index) {
        if (index < 2 * SUB_BUCKETS) {
            return index;
        }
        int shift = index / SUB_BUCKETS - 1;
        long mantissa = SUB_BUCKETS + index % SUB_BUCKETS;
        return mantissa << shift;
    }

    static long upperEdge(int index) {
        return index + 1 == BUCKETS ? Long.MAX_VALUE : lowerEdge(index + 1) - 1;
    }
}
