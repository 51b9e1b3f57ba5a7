package org.objrdma.telemetry.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.LatencySnapshot;

class LatencyHistogramTest {

    @Test
    void smallValuesAreExact() {
        LatencyHistogram h = new LatencyHistogram();
        for (long v = 1; v <= 20; v++) {
            h.record(v);
        }
        LatencySnapshot s = h.snapshot();
        assertEquals(20, s.count());
        assertEquals(10, s.p50Nanos(), "rank 10 of 1..20");
        assertEquals(20, s.p99Nanos(), "rank ceil(19.8) = 20");
        assertEquals(20, s.maxNanos());
    }

    @Test
    void percentilesOfKnownDataAreWithinOneBucket() {
        LatencyHistogram h = new LatencyHistogram();
        // 1 000 000 ns .. 1 000 000 000 ns in 1000 equal steps: p50 is 500 ms, p99 990 ms, max 1 s
        for (int i = 1; i <= 1000; i++) {
            h.record(i * 1_000_000L);
        }
        LatencySnapshot s = h.snapshot();
        assertEquals(1000, s.count());
        assertEquals(1_000_000_000L, s.maxNanos());
        assertWithinOneBucket(500_000_000L, s.p50Nanos());
        assertWithinOneBucket(990_000_000L, s.p99Nanos());
    }

    @Test
    void aSkewedDistributionShowsItsTail() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 0; i < 980; i++) {
            h.record(10_000); // 10 µs
        }
        for (int i = 0; i < 20; i++) {
            h.record(50_000_000); // 50 ms: 2 % of the values
        }
        LatencySnapshot s = h.snapshot();
        assertWithinOneBucket(10_000, s.p50Nanos());
        assertWithinOneBucket(50_000_000, s.p99Nanos());
        assertEquals(50_000_000, s.maxNanos());
    }

    @Test
    void percentilesNeverExceedTheMaximum() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(1_000_001);
        LatencySnapshot s = h.snapshot();
        assertEquals(new LatencySnapshot(1, 1_000_001, 1_000_001, 1_000_001), s);
    }

    @Test
    void emptyAndZeroAndLargest() {
        LatencyHistogram h = new LatencyHistogram();
        assertEquals(LatencySnapshot.EMPTY, h.snapshot());
        h.record(0);
        assertEquals(new LatencySnapshot(1, 0, 0, 0), h.snapshot());
        h.record(Long.MAX_VALUE);
        assertEquals(Long.MAX_VALUE, h.snapshot().maxNanos());
        assertEquals(LatencyHistogram.BUCKETS - 1, LatencyHistogram.index(Long.MAX_VALUE));
    }

    @Test
    void aNegativeValueIsRefusedAndChangesNothing() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(5);
        assertThrows(IllegalArgumentException.class, () -> h.record(-1));
        assertEquals(new LatencySnapshot(1, 5, 5, 5), h.snapshot());
    }

    @Test
    void bucketsTileTheLongsWithoutGapsAndWithinOneSixteenth() {
        for (int i = 0; i + 1 < LatencyHistogram.BUCKETS; i++) {
            long lower = LatencyHistogram.lowerEdge(i);
            long upper = LatencyHistogram.upperEdge(i);
            assertEquals(i, LatencyHistogram.index(lower), "lower edge of " + i);
            assertEquals(i, LatencyHistogram.index(upper), "upper edge of " + i);
            assertEquals(upper + 1, LatencyHistogram.lowerEdge(i + 1), "bucket " + (i + 1) + " follows " + i);
            assertTrue(upper - lower <= Math.max(0, lower / 16), "width of bucket " + i);
        }
    }

    @Test
    void concurrentRecordsAreAllCounted() throws InterruptedException {
        LatencyHistogram h = new LatencyHistogram();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            long base = t * 1000L;
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 50_000; i++) {
                    h.record(base + i % 1000);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(200_000, h.snapshot().count());
        assertEquals(3999, h.snapshot().maxNanos());
    }

    private static void assertWithinOneBucket(long expected, long actual) {
        assertTrue(actual >= expected && actual <= expected + expected / 16,
                "expected " + expected + " (+ at most 1/16), was " + actual);
    }
}
