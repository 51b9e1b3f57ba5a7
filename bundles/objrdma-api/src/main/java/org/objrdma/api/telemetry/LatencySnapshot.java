package org.objrdma.api.telemetry;

/**
 * What a latency histogram held when it was read: how many values, their median, 99th percentile and
 * maximum, in nanoseconds. Percentiles are the upper edge of the bucket holding that rank, so they
 * over-state by at most the histogram's relative bucket width (never above {@code maxNanos}).
 */
public record LatencySnapshot(long count, long p50Nanos, long p99Nanos, long maxNanos) {

    /** Nothing recorded. */
    public static final LatencySnapshot EMPTY = new LatencySnapshot(0, 0, 0, 0);

    public LatencySnapshot {
        if (count < 0 || p50Nanos < 0 || p99Nanos < 0 || maxNanos < 0) {
            throw new IllegalArgumentException("a latency snapshot holds no negative value");
        }
    }
}
