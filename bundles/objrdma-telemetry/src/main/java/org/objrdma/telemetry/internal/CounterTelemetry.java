package org.objrdma.telemetry.internal;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.KeyedCounter;
import org.objrdma.api.telemetry.Latency;
import org.objrdma.api.telemetry.LatencySnapshot;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.telemetry.TelemetryView;
import org.osgi.service.component.annotations.Component;

/**
 * The process-wide counters. One {@link LongAdder} per counter: adds from many data-path threads do not
 * contend, reads sum the stripes (reads are rare: shell, JMX, tests). Keyed counters and latency
 * histograms follow the same rule: no lock on the recording path.
 */
// immediate: a delayed component is disposed when its last user ungets it, and the counts would vanish with it
@Component(name = "org.objrdma.telemetry", service = {Telemetry.class, TelemetryView.class}, immediate = true)
public final class CounterTelemetry implements Telemetry {

    private final LongAdder[] adders = new LongAdder[Counter.values().length];
    private final KeyedCounts[] keyed = new KeyedCounts[KeyedCounter.values().length];
    private final LatencyHistogram[] latencies = new LatencyHistogram[Latency.values().length];

    public CounterTelemetry() {
        for (int i = 0; i < adders.length; i++) {
            adders[i] = new LongAdder();
        }
        for (int i = 0; i < keyed.length; i++) {
            keyed[i] = new KeyedCounts();
        }
        for (int i = 0; i < latencies.length; i++) {
            latencies[i] = new LatencyHistogram();
        }
    }

    @Override
    public void increment(KeyedCounter counter, String key) {
        keyed[counter.ordinal()].increment(key);
    }

    @Override
    public void record(Latency latency, long nanos) {
        latencies[latency.ordinal()].record(nanos);
    }

    @Override
    public Map<String, Long> keyed(KeyedCounter counter) {
        return keyed[counter.ordinal()].snapshot();
    }

    @Override
    public LatencySnapshot latency(Latency latency) {
        return latencies[latency.ordinal()].snapshot();
    }

    @Override
    public void add(Counter counter, long delta) {
        if (delta < 0) {
            throw new IllegalArgumentException("counters only grow; delta " + delta + " for " + counter.id());
        }
        adders[counter.ordinal()].add(delta);
    }

    @Override
    public long value(Counter counter) {
        return adders[counter.ordinal()].sum();
    }

    @Override
    public Map<Counter, Long> snapshot() {
        Map<Counter, Long> values = new EnumMap<>(Counter.class);
        for (Counter c : Counter.values()) {
            values.put(c, adders[c.ordinal()].sum());
        }
        return Collections.unmodifiableMap(values);
    }
}
