package org.objrdma.testsupport;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Latency;
import org.objrdma.api.telemetry.Telemetry;

/**
 * A test's telemetry: one adder per counter, as the real service keeps them, and every duration recorded, in
 * order, so a test can assert what was measured. Keyed counters count nothing (the interface's default).
 */
public final class CountingTelemetry implements Telemetry {
    private final Map<Counter, LongAdder> adders = new EnumMap<>(Counter.class);
    private final Map<Latency, List<Long>> durations = new EnumMap<>(Latency.class);

    public CountingTelemetry() {
        for (Counter c : Counter.values()) {
            adders.put(c, new LongAdder());
        }
        for (Latency l : Latency.values()) {
            durations.put(l, new CopyOnWriteArrayList<>());
        }
    }

    @Override
    public void add(Counter counter, long delta) {
        adders.get(counter).add(delta);
    }

    @Override
    public void record(Latency latency, long nanos) {
        durations.get(latency).add(nanos);
    }

    /** Every duration recorded into {@code latency}, in order. */
    public List<Long> recorded(Latency latency) {
        return List.copyOf(durations.get(latency));
    }

    @Override
    public long value(Counter counter) {
        return adders.get(counter).sum();
    }

    @Override
    public Map<Counter, Long> snapshot() {
        Map<Counter, Long> m = new EnumMap<>(Counter.class);
        adders.forEach((c, a) -> m.put(c, a.sum()));
        return Collections.unmodifiableMap(m);
    }

    /** True while as many channels and regions were closed as were opened: nothing a transport handed out is left. */
    public boolean transportBalanced() {
        return value(Counter.TRANSPORT_CHANNELS_OPENED) == value(Counter.TRANSPORT_CHANNELS_CLOSED)
                && value(Counter.TRANSPORT_REGIONS_REGISTERED) == value(Counter.TRANSPORT_REGIONS_DEREGISTERED);
    }
}
