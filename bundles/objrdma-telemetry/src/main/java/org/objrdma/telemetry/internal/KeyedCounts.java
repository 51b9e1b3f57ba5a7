package org.objrdma.telemetry.internal;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * One keyed counter: a striped adder per key, at most {@link #MAX_KEYS} keys; keys past that are counted
 * under {@link #OVERFLOW_KEY}, so a caller that passes unbounded keys cannot grow memory without bound.
 */
final class KeyedCounts {

    static final int MAX_KEYS = 64;
    static final String OVERFLOW_KEY = "(other)";

    private final ConcurrentHashMap<String, LongAdder> counts = new ConcurrentHashMap<>();

    /** @throws IllegalArgumentException for a null or empty key, counting nothing */
    void increment(String key) {
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("a counter key is not null or empty, was " + (key == null ? "null" : "''"));
        }
        LongAdder adder = counts.get(key);
        if (adder == null) {
            // the bound is approximate under a race (a few keys past it), which is all it has to be
            adder = counts.size() < MAX_KEYS ? counts.computeIfAbsent(key, k -> new LongAdder())
                    : counts.computeIfAbsent(OVERFLOW_KEY, k -> new LongAdder());
        }
        adder.increment();
    }

    Map<String, Long> snapshot() {
        Map<String, Long> out = new TreeMap<>();
        counts.forEach((key, adder) -> out.put(key, adder.sum()));
        return Collections.unmodifiableMap(out);
    }
}
