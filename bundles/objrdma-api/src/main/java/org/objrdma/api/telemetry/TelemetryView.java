package org.objrdma.api.telemetry;

import java.util.Map;
import org.osgi.annotation.versioning.ProviderType;

/** Read-only access to the counters. */
@ProviderType
public interface TelemetryView {

    /** Current value of {@code counter}; counters only grow. */
    long value(Counter counter);

    /** Every counter's value, in {@link Counter} order. */
    Map<Counter, Long> snapshot();

    /**
     * {@code counter}'s values by key, keys sorted; empty when nothing was counted. The default is empty.
     *
     * @since 1.1
     */
    default Map<String, Long> keyed(KeyedCounter counter) {
        return Map.of();
    }

    /**
     * What {@code latency}'s histogram holds now. The default is {@link LatencySnapshot#EMPTY}.
     *
     * @since 1.1
     */
    default LatencySnapshot latency(Latency latency) {
        return LatencySnapshot.EMPTY;
    }
}
