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
}
