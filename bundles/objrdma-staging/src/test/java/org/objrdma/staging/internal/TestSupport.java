package org.objrdma.staging.internal;

import java.lang.reflect.Proxy;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;

/** Small test doubles shared by the staging tests: a settable clock, recorded reports, counting telemetry. */
final class TestSupport {

    static final PrincipalId ALICE = PrincipalId.fromCanonical("alice");
    static final PrincipalId BOB = PrincipalId.fromCanonical("bob");

    private TestSupport() {
    }

    /** A clock the test moves by hand. */
    static final class ManualClock implements InstantSource {
        private final AtomicReference<Instant> now = new AtomicReference<>(Instant.parse("2026-01-01T00:00:00Z"));

        @Override
        public Instant instant() {
            return now.get();
        }

        void advance(Duration d) {
            now.updateAndGet(i -> i.plus(d));
        }
    }

    /** Keeps every report and also logs it, so the log format is exercised too. */
    static final class RecordingReports implements LeaseReports {
        private final LoggingLeaseReports log = new LoggingLeaseReports();
        final List<PooledLease> overdue = new CopyOnWriteArrayList<>();
        final List<PooledLease> doubleReturns = new CopyOnWriteArrayList<>();
        final List<PooledLease> unreturned = new CopyOnWriteArrayList<>();

        @Override
        public void overdue(PooledLease lease, Duration heldFor, Duration deadline) {
            overdue.add(lease);
            log.overdue(lease, heldFor, deadline);
        }

        @Override
        public void doubleReturn(PooledLease lease) {
            doubleReturns.add(lease);
            log.doubleReturn(lease);
        }

        @Override
        public void unreturnedAtShutdown(PooledLease lease) {
            unreturned.add(lease);
            log.unreturnedAtShutdown(lease);
        }
    }

    /** Counts like the real telemetry service does (one adder per counter). */
    static final class CountingTelemetry implements Telemetry {
        private final Map<Counter, LongAdder> adders = new EnumMap<>(Counter.class);

        CountingTelemetry() {
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

    /** Settings built from the defaults with some values changed; the constructor validates as in production. */
    static final class SettingsBuilder {
        long minBufferSize = 4096;
        long maxBufferSize = 64 * 1024;
        long maxTotalBytes = 1 << 20;
        long maxBytesPerPrincipal = 1 << 20;
        int maxBuffersPerClass = 64;
        /** Negative: as many as {@link #maxBuffersPerClass} (no per-principal share), unless a test sets it. */
        int maxBuffersPerPrincipalPerClass = -1;
        int idlePerClass = 4;
        Duration idleTimeout = Duration.ofMinutes(10);
        Duration borrowWait = Duration.ofSeconds(1);
        Duration leaseDeadline = Duration.ofSeconds(60);
        Duration leaseCheckPeriod = Duration.ofHours(1); // tests call the check themselves
        boolean trackStacks;
        Duration shutdownTimeout = Duration.ofMillis(200);
        boolean scrubOnReturn = true;

        StagingSettings build() {
            return new StagingSettings(minBufferSize, maxBufferSize, maxTotalBytes, maxBytesPerPrincipal,
                    maxBuffersPerClass, maxBuffersPerPrincipalPerClass < 0 ? maxBuffersPerClass
                            : maxBuffersPerPrincipalPerClass, idlePerClass, idleTimeout, borrowWait, leaseDeadline, leaseCheckPeriod,
                    trackStacks, shutdownTimeout, scrubOnReturn);
        }
    }

    /**
     * An instance of the configuration annotation as Configuration Admin would hand it over: the declared
     * defaults, with {@code overrides} keyed by method name.
     */
    static StagingPoolConfig config(Map<String, Object> overrides) {
        Map<String, Object> values = new HashMap<>(overrides);
        return (StagingPoolConfig) Proxy.newProxyInstance(StagingPoolConfig.class.getClassLoader(),
                new Class<?>[] {StagingPoolConfig.class}, (proxy, method, args) -> {
                    if (values.containsKey(method.getName())) {
                        return values.get(method.getName());
                    }
                    if (method.getDefaultValue() != null) {
                        return method.getDefaultValue();
                    }
                    return switch (method.getName()) {
                        case "annotationType" -> StagingPoolConfig.class;
                        case "toString" -> "StagingPoolConfig" + values;
                        case "hashCode" -> values.hashCode();
                        case "equals" -> proxy == args[0];
                        default -> throw new UnsupportedOperationException(method.toString());
                    };
                });
    }

}
