package org.objrdma.shell.internal;

import java.util.Map;

/** {@code org.objrdma:type=telemetry,name=counters}: every counter by its stable id. */
public interface TelemetryMXBean {
    /** Counter id → value, in counter order. */
    Map<String, Long> getCounters();

    /** The value of the counter with {@code id}; refused for an unknown id. */
    long value(String id);
}
