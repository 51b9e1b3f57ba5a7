package org.objrdma.metrics.internal;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.session.SessionSnapshot;
import org.objrdma.api.session.SessionState;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.KeyedCounter;
import org.objrdma.api.telemetry.Latency;
import org.objrdma.api.telemetry.LatencySnapshot;
import org.objrdma.api.telemetry.TelemetryView;
import org.objrdma.api.transport.Transport;

/**
 * objrdma's figures as Micrometer meters. Nothing is recorded twice: every meter is a function over what the
 * services already keep (telemetry's counters and histograms, the staging pool's and session manager's
 * snapshots, the transports' state), read when the registry is scraped.
 *
 * <p>Meters over a fixed set (every {@link Counter}, every {@link Latency}, the pool totals, every
 * {@link SessionState}) exist from the start. Meters named by a run-time key (an S3 error code, a size
 * class, a transport) are added by {@link #refresh()} when the key first shows; their number is bounded by
 * the sources (at most 64 error codes and "(other)", at most 19 size classes, one per transport service),
 * and a transport's meters go with its service.
 *
 * <p>{@link #refresh()} also takes one staging and one session snapshot, which every gauge of the scrape
 * that follows reads, so the pool's and the sessions' figures in one scrape agree with each other.
 */
final class ObjrdmaMeters {

    /** Nanoseconds in a second: Prometheus wants base units. */
    private static final double NANOS_PER_SECOND = 1e9;

    private final MeterRegistry registry;
    private final MetricSources sources;

    private final Set<String> errorCodes = new HashSet<>();
    private final Set<Long> sizeClasses = new HashSet<>();
    private final Map<String, List<Meter>> transportMeters = new HashMap<>();

    // what refresh() read, for the gauges of the scrape after it; null while the service is absent
    private volatile StagingStats staging;
    private volatile Map<Long, StagingStats.SizeClass> classes = Map.of();
    private volatile Map<SessionState, Long> sessionStates;

    ObjrdmaMeters(MeterRegistry registry, MetricSources sources) {
        this.registry = registry;
        this.sources = sources;
        for (Counter c : Counter.values()) {
            FunctionCounter.builder(c.id(), sources, s -> telemetryValue(s.telemetry(), c))
                    .description(c.description()).register(registry);
        }
        for (Latency l : Latency.values()) {
            registerLatency(l);
        }
        stagingGauge("objrdma.staging.leases.lent", "staging leases lent out now", StagingStats::borrowed);
        stagingGauge("objrdma.staging.buffers.idle", "staging buffers pooled and free now", StagingStats::idle);
        stagingGauge("objrdma.staging.bytes.lent", "bytes of the size classes lent out now", StagingStats::bytesBorrowed);
        stagingGauge("objrdma.staging.bytes.held", "bytes of every staging buffer held (lent and idle)",
                StagingStats::bytesAllocated);
        Gauge.builder("objrdma.staging.max.buffer.bytes", this,
                        m -> m.sources.staging() == null ? Double.NaN : m.sources.staging().maxBufferSize())
                .description("largest size one staging lease may have").strongReference(true).register(registry);
        FunctionCounter.builder("objrdma.staging.borrow.failures", this,
                        m -> m.staging == null ? Double.NaN : m.staging.failures())
                .description("borrows of this pool instance that failed for another reason than a limit "
                        + "(restarts with the pool)").register(registry);
        for (SessionState state : SessionState.values()) {
            Gauge.builder("objrdma.sessions", this, m -> sessionsIn(m.sessionStates, state))
                    .tag("state", state.name()).description("live sessions by state")
                    .strongReference(true).register(registry);
        }
    }

    /** Reads the snapshots for the next scrape and adds the meters of keys seen for the first time. */
    synchronized void refresh() {
        TelemetryView telemetry = sources.telemetry();
        if (telemetry != null) {
            for (String code : telemetry.keyed(KeyedCounter.S3_ERRORS_BY_CODE).keySet()) {
                if (errorCodes.add(code)) {
                    KeyedCounter k = KeyedCounter.S3_ERRORS_BY_CODE;
                    FunctionCounter.builder(k.id(), sources, s -> keyedValue(s.telemetry(), k, code))
                            .tag("code", code).description(k.description()).register(registry);
                }
            }
        }
        StagingPool pool = sources.staging();
        StagingStats stats = pool == null ? null : pool.stats();
        Map<Long, StagingStats.SizeClass> bySize = new HashMap<>();
        if (stats != null) {
            for (StagingStats.SizeClass c : stats.classes()) {
                bySize.put(c.bufferSize(), c);
                if (sizeClasses.add(c.bufferSize())) {
                    registerSizeClass(c.bufferSize());
                }
            }
        }
        staging = stats;
        classes = bySize;
        SessionManager sessions = sources.sessions();
        sessionStates = sessions == null ? null : countByState(sessions.snapshot());
        refreshTransports(sources.transports());
    }

    private void registerLatency(Latency l) {
        // our histograms keep count, p50, p99 and max, not a sum: so not a Prometheus summary, but its
        // quantiles as a gauge, the max as a gauge and the count as a counter
        String name = l.id() + ".seconds";
        quantileGauge(name, l, "0.5", LatencySnapshot::p50Nanos);
        quantileGauge(name, l, "0.99", LatencySnapshot::p99Nanos);
        Gauge.builder(name + ".max", sources, s -> seconds(latency(s.telemetry(), l), LatencySnapshot::maxNanos))
                .description(l.description() + " (largest, seconds)").strongReference(true).register(registry);
        FunctionCounter.builder(l.id() + ".count", sources, s -> {
                    LatencySnapshot snap = latency(s.telemetry(), l);
                    return snap == null ? Double.NaN : snap.count();
                })
                .description(l.description() + " (how many were timed)").register(registry);
    }

    private void quantileGauge(String name, Latency l, String quantile, ToDoubleFunction<LatencySnapshot> nanos) {
        Gauge.builder(name, sources, s -> seconds(latency(s.telemetry(), l), nanos))
                .tag("quantile", quantile).description(l.description() + " (seconds)")
                .strongReference(true).register(registry);
    }

    private void stagingGauge(String name, String description, ToDoubleFunction<StagingStats> value) {
        Gauge.builder(name, this, m -> m.staging == null ? Double.NaN : value.applyAsDouble(m.staging))
                .description(description).strongReference(true).register(registry);
    }

    private void registerSizeClass(long size) {
        String tag = Long.toString(size);
        Gauge.builder("objrdma.staging.class.lent", this, m -> classValue(m, size, true))
                .tag("size", tag).description("staging buffers of one size class lent out now")
                .strongReference(true).register(registry);
        Gauge.builder("objrdma.staging.class.idle", this, m -> classValue(m, size, false))
                .tag("size", tag).description("staging buffers of one size class pooled and free now")
                .strongReference(true).register(registry);
    }

    private void refreshTransports(Collection<Transport> transports) {
        Map<String, Transport> now = new HashMap<>();
        for (Transport t : transports) {
            now.putIfAbsent(t.name(), t);
        }
        for (var it = transportMeters.entrySet().iterator(); it.hasNext(); ) {
            var entry = it.next();
            if (!now.containsKey(entry.getKey())) {
                entry.getValue().forEach(registry::remove);
                it.remove();
            }
        }
        for (String name : now.keySet()) {
            if (!transportMeters.containsKey(name)) {
                List<Meter> meters = new ArrayList<>();
                meters.add(Gauge.builder("objrdma.transport.available", sources,
                                s -> transportValue(s, name, t -> t.isAvailable() ? 1 : 0))
                        .tag("transport", name).description("1 while the transport service says it is available, else 0")
                        .strongReference(true).register(registry));
                meters.add(Gauge.builder("objrdma.transport.channels.open", sources,
                                s -> transportValue(s, name, t -> t.channels().size()))
                        .tag("transport", name).description("channels of the transport open now")
                        .strongReference(true).register(registry));
                transportMeters.put(name, meters);
            }
        }
    }

    private static double transportValue(MetricSources s, String name, ToDoubleFunction<Transport> value) {
        for (Transport t : s.transports()) {
            if (t.name().equals(name)) {
                return value.applyAsDouble(t);
            }
        }
        return Double.NaN;
    }

    private static double classValue(ObjrdmaMeters m, long size, boolean lent) {
        StagingStats.SizeClass c = m.classes.get(size);
        if (c == null) {
            return Double.NaN;
        }
        return lent ? c.borrowed() : c.idle();
    }

    private static Map<SessionState, Long> countByState(List<SessionSnapshot> sessions) {
        Map<SessionState, Long> counts = new EnumMap<>(SessionState.class);
        for (SessionSnapshot s : sessions) {
            counts.merge(s.state(), 1L, Long::sum);
        }
        return counts;
    }

    private static double sessionsIn(Map<SessionState, Long> counts, SessionState state) {
        return counts == null ? Double.NaN : counts.getOrDefault(state, 0L);
    }

    private static double telemetryValue(TelemetryView telemetry, Counter c) {
        return telemetry == null ? Double.NaN : telemetry.value(c);
    }

    private static double keyedValue(TelemetryView telemetry, KeyedCounter k, String key) {
        return telemetry == null ? Double.NaN : telemetry.keyed(k).getOrDefault(key, 0L);
    }

    private static LatencySnapshot latency(TelemetryView telemetry, Latency l) {
        return telemetry == null ? null : telemetry.latency(l);
    }

    private static double seconds(LatencySnapshot snap, ToDoubleFunction<LatencySnapshot> nanos) {
        return snap == null ? Double.NaN : nanos.applyAsDouble(snap) / NANOS_PER_SECOND;
    }
}
