package org.objrdma.session.internal;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLongArray;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Latency;
import org.objrdma.api.telemetry.Telemetry;

/** A test's telemetry: counts in memory what the session core adds, and keeps every duration it records. */
final class CountingTelemetry implements Telemetry {
    private final AtomicLongArray values = new AtomicLongArray(Counter.values().length);
    private final Map<Latency, List<Long>> durations = new EnumMap<>(Latency.class);

    CountingTelemetry() {
        for (Latency l : Latency.values()) {
            durations.put(l, new CopyOnWriteArrayList<>());
        }
    }

    @Override
    public void add(Counter counter, long delta) {
        values.addAndGet(counter.ordinal(), delta);
    }

    @Override
    public void record(Latency latency, long nanos) {
        durations.get(latency).add(nanos);
    }

    /** Every duration recorded into {@code latency}, in order. */
    List<Long> recorded(Latency latency) {
        return List.copyOf(durations.get(latency));
    }

    @Override
    public long value(Counter counter) {
        return values.get(counter.ordinal());
    }

    @Override
    public Map<Counter, Long> snapshot() {
        Map<Counter, Long> out = new EnumMap<>(Counter.class);
        for (Counter c : Counter.values()) {
            out.put(c, value(c));
        }
        return Collections.unmodifiableMap(out);
    }
}
