package org.objrdma.api.telemetry;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Where bundles count what they do. Available as an OSGi service; a bundle without one uses {@link #NOOP}.
 * Counting must be cheap enough for the data path: implementations use striped adders, not locks.
 */
@ProviderType
public interface Telemetry extends TelemetryView {

    /** Counts nothing, reads zero. */
    Telemetry NOOP = new Telemetry() {
        @Override
        public void add(Counter counter, long delta) {
            // deliberately nothing
        }

        @Override
        public long value(Counter counter) {
            return 0;
        }

        @Override
        public Map<Counter, Long> snapshot() {
            Map<Counter, Long> zeros = new EnumMap<>(Counter.class);
            for (Counter c : Counter.values()) {
                zeros.put(c, 0L);
            }
            return Collections.unmodifiableMap(zeros);
        }
    };

    /** Adds {@code delta} (not negative) to {@code counter}. */
    void add(Counter counter, long delta);

    /** Adds one. */
    default void increment(Counter counter) {
        add(counter, 1);
    }

    /**
     * Adds one to {@code counter} under {@code key} (not null or empty). Implementations bound the number of
     * keys and count keys past that bound together. The default counts nothing.
     *
     * @since 1.1
     */
    default void increment(KeyedCounter counter, String key) {
        // counts nothing
    }

    /**
     * Records one duration of {@code nanos} (not negative) into {@code latency}'s histogram. The default
     * records nothing.
     *
     * @since 1.1
     */
    default void record(Latency latency, long nanos) {
        // records nothing
    }

    /** A read-only view that cannot be cast back to a writer. */
    default TelemetryView view() {
        Telemetry self = this;
        return new TelemetryView() {
            @Override
            public long value(Counter counter) {
                return self.value(counter);
            }

            @Override
            public Map<Counter, Long> snapshot() {
                return self.snapshot();
            }

            @Override
            public Map<String, Long> keyed(KeyedCounter counter) {
                return self.keyed(counter);
            }

            @Override
            public LatencySnapshot latency(Latency latency) {
                return self.latency(latency);
            }
        };
    }
}
