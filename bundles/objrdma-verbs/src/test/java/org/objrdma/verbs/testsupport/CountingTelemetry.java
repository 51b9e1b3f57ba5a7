package org.objrdma.verbs.testsupport;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;

/** A Telemetry for tests: one adder per counter, like the real service. */
public final class CountingTelemetry implements Telemetry {
    private final Map<Counter, LongAdder> adders = new EnumMap<>(Counter.class);

    public CountingTelemetry() {
        for (Counter c : Counter.values()) {
            adders.put(c, new LongAdder());
        }
    }

    @Override
    public void add(Counter counter, long delta) {
        adders.get(counter).add(delta);
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
}
