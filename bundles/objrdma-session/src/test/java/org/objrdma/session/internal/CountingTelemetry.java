package org.objrdma.session.internal;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;

/** A test's telemetry: counts in memory what the session core adds. */
final class CountingTelemetry implements Telemetry {
    private final AtomicLongArray values = new AtomicLongArray(Counter.values().length);

    @Override
    public void add(Counter counter, long delta) {
        values.addAndGet(counter.ordinal(), delta);
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
