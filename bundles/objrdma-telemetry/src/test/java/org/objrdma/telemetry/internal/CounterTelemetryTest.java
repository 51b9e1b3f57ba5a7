package org.objrdma.telemetry.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Counter;

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
}
