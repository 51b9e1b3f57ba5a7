package org.objrdma.metrics.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.SessionId;
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
import org.objrdma.api.transport.ChannelInfo;
import org.objrdma.api.transport.Transport;

/**
 * The meter mapping through a real PrometheusMeterRegistry and its text format: names, labels and values equal
 * what the (fake) sources hold at the scrape, keys seen later appear, a transport's series go with it, and an
 * absent service reads NaN.
 */
class ObjrdmaMetersTest {

    private final FakeSources sources = new FakeSources();
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ObjrdmaMeters meters = new ObjrdmaMeters(registry, sources);
    private final MetricsServlet servlet = new MetricsServlet(meters, registry);

    @Test
    void everyCounterIsAPrometheusCounterWithItsValue() throws Exception {
        long n = 1;
        for (Counter c : Counter.values()) {
            sources.telemetry.counters.put(c, n++ * 1000);
        }
        Map<String, Double> samples = scrape();
        n = 1;
        for (Counter c : Counter.values()) {
            assertEquals(n++ * 1000.0, samples.get(c.id().replace('.', '_') + "_total"), c.id());
        }
        assertEquals(17_000.0, samples.get("objrdma_session_ready_ok_total"));
        String text = text();
        assertTrue(text.contains("# TYPE objrdma_s3_requests_total counter"), text);
        assertTrue(text.contains("# HELP objrdma_s3_requests_total S3 HTTP requests handled"), text);
    }

    @Test
    void countersFollowTheSourceBetweenScrapes() throws Exception {
        sources.telemetry.counters.put(Counter.S3_REQUESTS, 5L);
        assertEquals(5.0, scrape().get("objrdma_s3_requests_total"));
        sources.telemetry.counters.put(Counter.S3_REQUESTS, 8L);
        assertEquals(8.0, scrape().get("objrdma_s3_requests_total"));
    }

    @Test
    void errorCodesAreLabelsAddedWhenFirstCounted() throws Exception {
        assertFalse(text().contains("objrdma_s3_errors_by_code_total{"));
        sources.telemetry.keyed.put("NoSuchKey", 3L);
        sources.telemetry.keyed.put("AccessDenied", 2L);
        Map<String, Double> samples = scrape();
        assertEquals(3.0, samples.get("objrdma_s3_errors_by_code_total{code=\"NoSuchKey\"}"));
        assertEquals(2.0, samples.get("objrdma_s3_errors_by_code_total{code=\"AccessDenied\"}"));
        sources.telemetry.keyed.put("NoSuchKey", 4L);
        assertEquals(4.0, scrape().get("objrdma_s3_errors_by_code_total{code=\"NoSuchKey\"}"));
    }

    @Test
    void latenciesAreQuantilesMaxAndCountInSeconds() throws Exception {
        sources.telemetry.latencies.put(Latency.SESSION_READY,
                new LatencySnapshot(7, 1_500_000, 20_000_000, 30_000_000));
        Map<String, Double> samples = scrape();
        assertEquals(0.0015, samples.get("objrdma_session_ready_latency_seconds{quantile=\"0.5\"}"), 1e-12);
        assertEquals(0.02, samples.get("objrdma_session_ready_latency_seconds{quantile=\"0.99\"}"), 1e-12);
        assertEquals(0.03, samples.get("objrdma_session_ready_latency_seconds_max"), 1e-12);
        assertEquals(7.0, samples.get("objrdma_session_ready_latency_count_total"));
        for (Latency l : Latency.values()) {
            String base = l.id().replace('.', '_');
            assertTrue(samples.containsKey(base + "_seconds{quantile=\"0.99\"}"), base);
            assertTrue(samples.containsKey(base + "_count_total"), base);
        }
        assertEquals(0.0, samples.get("objrdma_s3_request_latency_count_total"));
    }

    @Test
    void stagingTotalsAndSizeClassesFromOneSnapshot() throws Exception {
        sources.staging = pool(new StagingStats(3, 2, 3 * 65536, 5 * 65536, 10, 1, 0, 4, 0, 0,
                List.of(new StagingStats.SizeClass(4096, 0, 1), new StagingStats.SizeClass(65536, 3, 1))));
        Map<String, Double> samples = scrape();
        assertEquals(3.0, samples.get("objrdma_staging_leases_lent"));
        assertEquals(2.0, samples.get("objrdma_staging_buffers_idle"));
        assertEquals(3.0 * 65536, samples.get("objrdma_staging_bytes_lent"));
        assertEquals(5.0 * 65536, samples.get("objrdma_staging_bytes_held"));
        assertEquals(4.0, samples.get("objrdma_staging_borrow_failures_total"));
        assertEquals(1 << 20, samples.get("objrdma_staging_max_buffer_bytes"));
        assertEquals(3.0, samples.get("objrdma_staging_class_lent{size=\"65536\"}"));
        assertEquals(1.0, samples.get("objrdma_staging_class_idle{size=\"4096\"}"));
    }

    @Test
    void absentServicesReadNaN() throws Exception {
        sources.telemetry = null;
        Map<String, Double> samples = scrape();
        assertTrue(samples.get("objrdma_staging_bytes_lent").isNaN());
        assertTrue(samples.get("objrdma_sessions{state=\"TRANSFERRING\"}").isNaN());
        assertTrue(samples.get("objrdma_session_ready_latency_seconds_max").isNaN());
        // a FunctionCounter keeps its last value when its function returns NaN; a first scrape has none
        assertTrue(samples.get("objrdma_s3_requests_total").isNaN());
    }

    @Test
    void sessionsByState() throws Exception {
        sources.sessions = sessions(List.of(session(SessionState.TRANSFERRING), session(SessionState.TRANSFERRING),
                session(SessionState.PREPARED)));
        Map<String, Double> samples = scrape();
        assertEquals(2.0, samples.get("objrdma_sessions{state=\"TRANSFERRING\"}"));
        assertEquals(1.0, samples.get("objrdma_sessions{state=\"PREPARED\"}"));
        assertEquals(0.0, samples.get("objrdma_sessions{state=\"REAPING\"}"));
    }

    @Test
    void aTransportsSeriesComeAndGoWithIt() throws Exception {
        Transport tcp = transport("tcp", true, 2);
        sources.transports.add(tcp);
        sources.transports.add(transport("verbs", false, 0));
        Map<String, Double> samples = scrape();
        assertEquals(1.0, samples.get("objrdma_transport_available{transport=\"tcp\"}"));
        assertEquals(2.0, samples.get("objrdma_transport_channels_open{transport=\"tcp\"}"));
        assertEquals(0.0, samples.get("objrdma_transport_available{transport=\"verbs\"}"));
        sources.transports.remove(tcp);
        samples = scrape();
        assertNull(samples.get("objrdma_transport_available{transport=\"tcp\"}"));
        assertEquals(0.0, samples.get("objrdma_transport_available{transport=\"verbs\"}"));
    }

    @Test
    void openMetricsWhenTheScraperAsksForIt() throws Exception {
        String om = new String(servlet.scrape("application/openmetrics-text; version=1.0.0; charset=utf-8"),
                StandardCharsets.UTF_8);
        assertTrue(om.strip().endsWith("# EOF"), om);
    }

    @Test
    void badPathsAreRefusedNamingTheProperty() {
        for (String bad : new String[] {"", "/", "metrics", "/metrics/", "/*", "/metrics/*", "/a b", "/..", "/x/./y", null}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new MetricsSettings(bad, true),
                    String.valueOf(bad));
            assertTrue(e.getMessage().startsWith("org.objrdma.metrics: path = "), e.getMessage());
        }
        assertEquals("/_prometheus/objrdma", new MetricsSettings("/_prometheus/objrdma", false).path());
    }

    // --- the scrape, parsed: "name{labels}" -> value, for lines that are samples

    private String text() throws Exception {
        return new String(servlet.scrape("text/plain; version=0.0.4; charset=utf-8"), StandardCharsets.UTF_8);
    }

    private Map<String, Double> scrape() throws Exception {
        Map<String, Double> samples = new TreeMap<>();
        for (String line : text().split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
        }
        return samples;
    }

    // --- fakes of the services

    private static final class FakeTelemetry implements TelemetryView {
        final Map<Counter, Long> counters = new EnumMap<>(Counter.class);
        final Map<String, Long> keyed = new TreeMap<>();
        final Map<Latency, LatencySnapshot> latencies = new EnumMap<>(Latency.class);

        @Override
        public long value(Counter counter) {
            return counters.getOrDefault(counter, 0L);
        }

        @Override
        public Map<Counter, Long> snapshot() {
            Map<Counter, Long> all = new EnumMap<>(Counter.class);
            for (Counter c : Counter.values()) {
                all.put(c, value(c));
            }
            return all;
        }

        @Override
        public Map<String, Long> keyed(KeyedCounter counter) {
            return new TreeMap<>(keyed);
        }

        @Override
        public LatencySnapshot latency(Latency latency) {
            return latencies.getOrDefault(latency, LatencySnapshot.EMPTY);
        }
    }

    private static final class FakeSources implements MetricSources {
        FakeTelemetry telemetry = new FakeTelemetry();
        StagingPool staging;
        SessionManager sessions;
        final List<Transport> transports = new CopyOnWriteArrayList<>();

        @Override
        public TelemetryView telemetry() {
            return telemetry;
        }

        @Override
        public StagingPool staging() {
            return staging;
        }

        @Override
        public SessionManager sessions() {
            return sessions;
        }

        @Override
        public Collection<Transport> transports() {
            return transports;
        }
    }

    private static StagingPool pool(StagingStats stats) {
        return fake(StagingPool.class, (name) -> switch (name) {
            case "stats" -> stats;
            case "maxBufferSize" -> 1L << 20;
            default -> null;
        });
    }

    private static SessionManager sessions(List<SessionSnapshot> snapshot) {
        return fake(SessionManager.class, name -> name.equals("snapshot") ? snapshot : null);
    }

    private static SessionSnapshot session(SessionState state) {
        String hex = "%032x".formatted(System.nanoTime());
        return new SessionSnapshot(SessionId.parse(hex).orElseThrow(), Op.GET, "bucket/key", state, false,
                Duration.ofSeconds(1), 4096);
    }

    private static Transport transport(String name, boolean available, int channels) {
        List<ChannelInfo> open = java.util.Collections.nCopies(channels, (ChannelInfo) null);
        return fake(Transport.class, m -> switch (m) {
            case "name" -> name;
            case "isAvailable" -> available;
            case "channels" -> open;
            default -> null;
        });
    }

    private static <T> T fake(Class<T> type, java.util.function.Function<String, Object> answers) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> switch (method.getName()) {
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> type.getSimpleName();
                    default -> answers.apply(method.getName());
                }));
    }
}
