package org.objrdma.telemetry.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.KeyedCounter;
import org.objrdma.api.telemetry.Latency;
import org.objrdma.api.telemetry.LatencySnapshot;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.telemetry.TelemetryView;

class CounterTelemetryTest {

    @Test
    void concurrentAddsAreExact() throws InterruptedException {
        CounterTelemetry t = new CounterTelemetry();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int j = 0; j < 100_000; j++) {
                    t.increment(Counter.STAGING_BORROWS);
                    t.add(Counter.TRANSPORT_BYTES_WRITTEN, 3);
                }
            }));
        }
        for (Thread th : threads) {
            th.join();
        }
        assertEquals(800_000, t.value(Counter.STAGING_BORROWS));
        assertEquals(2_400_000, t.snapshot().get(Counter.TRANSPORT_BYTES_WRITTEN));
        assertEquals(0, t.value(Counter.S3_ERRORS));
    }

    @Test
    void negativeDeltaIsRefusedAndChangesNothing() {
        CounterTelemetry t = new CounterTelemetry();
        t.add(Counter.S3_REQUESTS, 2);
        assertThrows(IllegalArgumentException.class, () -> t.add(Counter.S3_REQUESTS, -1));
        assertEquals(2, t.value(Counter.S3_REQUESTS));
    }

    @Test
    void keyedCountsArePerKeyAndBounded() {
        CounterTelemetry t = new CounterTelemetry();
        t.increment(KeyedCounter.S3_ERRORS_BY_CODE, "NoSuchKey");
        t.increment(KeyedCounter.S3_ERRORS_BY_CODE, "AccessDenied");
        t.increment(KeyedCounter.S3_ERRORS_BY_CODE, "AccessDenied");
        assertEquals(java.util.Map.of("AccessDenied", 2L, "NoSuchKey", 1L), t.keyed(KeyedCounter.S3_ERRORS_BY_CODE));
        assertEquals(java.util.List.of("AccessDenied", "NoSuchKey"),
                java.util.List.copyOf(t.keyed(KeyedCounter.S3_ERRORS_BY_CODE).keySet()), "keys sorted");
        for (int i = 0; i < 200; i++) {
            t.increment(KeyedCounter.S3_ERRORS_BY_CODE, "Code" + i);
        }
        var counts = t.keyed(KeyedCounter.S3_ERRORS_BY_CODE);
        assertEquals(KeyedCounts.MAX_KEYS + 1, counts.size(), "at most MAX_KEYS keys plus the overflow key");
        assertEquals(203, counts.values().stream().mapToLong(Long::longValue).sum(), "nothing lost");
    }

    @Test
    void aNullOrEmptyKeyIsRefusedAndChangesNothing() {
        CounterTelemetry t = new CounterTelemetry();
        assertThrows(IllegalArgumentException.class, () -> t.increment(KeyedCounter.S3_ERRORS_BY_CODE, null));
        assertThrows(IllegalArgumentException.class, () -> t.increment(KeyedCounter.S3_ERRORS_BY_CODE, ""));
        assertEquals(java.util.Map.of(), t.keyed(KeyedCounter.S3_ERRORS_BY_CODE));
    }

    @Test
    void latenciesAreKeptApartAndTheViewReadsThem() {
        CounterTelemetry t = new CounterTelemetry();
        t.record(Latency.S3_REQUEST, 7);
        t.record(Latency.S3_REQUEST, 9);
        TelemetryView view = t.view();
        assertFalse(view instanceof Telemetry);
        assertEquals(new LatencySnapshot(2, 7, 9, 9), view.latency(Latency.S3_REQUEST));
        assertEquals(LatencySnapshot.EMPTY, view.latency(Latency.SESSION_READY));
        t.increment(KeyedCounter.S3_ERRORS_BY_CODE, "NoSuchBucket");
        assertEquals(java.util.Map.of("NoSuchBucket", 1L), view.keyed(KeyedCounter.S3_ERRORS_BY_CODE));
        assertThrows(IllegalArgumentException.class, () -> t.record(Latency.S3_REQUEST, -1));
        assertEquals(2, view.latency(Latency.S3_REQUEST).count());
    }

    @Test
    void theNoopCountsAndRecordsNothing() {
        Telemetry.NOOP.record(Latency.S3_REQUEST, 5);
        Telemetry.NOOP.increment(KeyedCounter.S3_ERRORS_BY_CODE, "AccessDenied");
        assertEquals(LatencySnapshot.EMPTY, Telemetry.NOOP.latency(Latency.S3_REQUEST));
        assertEquals(java.util.Map.of(), Telemetry.NOOP.keyed(KeyedCounter.S3_ERRORS_BY_CODE));
    }
}
