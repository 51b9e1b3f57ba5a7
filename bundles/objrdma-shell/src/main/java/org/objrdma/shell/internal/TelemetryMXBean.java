package org.objrdma.shell.internal;

import java.util.Map;

/** {@code org.objrdma:type=telemetry,name=counters}: every counter by its stable id. */
public interface TelemetryMXBean {
    /** Counter id → value, in counter order. */
    Map<String, Long> getCounters();

    /** Keyed counter id → (key → value), e.g. {@code objrdma.s3.errors.by_code} → {@code AccessDenied} → 3. */
    Map<String, Map<String, Long>> getKeyedCounters();

    /**
     * Latency id → {@code count}, {@code p50Nanos}, {@code p99Nanos}, {@code maxNanos} (the histogram as read
     * now; see LatencySnapshot).
     */
    Map<String, Map<String, Long>> getLatencies();

    /** The value of the counter with {@code id}; refused for an unknown id. */
    long value(String id);
}
