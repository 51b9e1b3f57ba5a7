package org.objrdma.metrics.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.telemetry.TelemetryView;
import org.objrdma.api.transport.Transport;

/**
 * Issue 24, finding 10: the endpoint's default path is no bucket's, a path that would hide a bucket is refused,
 * the bearer token and loopback checks, the token never in a message, and concurrent scrapes share one
 * instead of queueing behind each other.
 */
class MetricsAccessTest {

    @Test
    void theDefaultPathHidesNoBucketAndABucketShapedPathIsRefused() {
        MetricsSettings defaults = new MetricsSettings(MetricsSettings.DEFAULT_PATH, true);
        assertEquals("/.objrdma/metrics", defaults.path());
        assertTrue(defaults.loopbackOnly());
        assertEquals("", defaults.bearerToken());
        for (String bucketShaped : List.of("/metrics", "/prom/objrdma", "/my-bucket/metrics")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new MetricsSettings(bucketShaped, true), bucketShaped);
            assertTrue(e.getMessage().startsWith("org.objrdma.metrics: path = " + bucketShaped), e.getMessage());
            assertTrue(e.getMessage().contains("legal S3 bucket name"), e.getMessage());
        }
        // no bucket name has '_', '.' first, upper case, or fewer than 3 characters
        for (String fine : List.of("/_prom/objrdma", "/.prom", "/Metrics", "/m")) {
            assertEquals(fine, new MetricsSettings(fine, true).path());
        }
    }

    @Test
    void aBadTokenIsRefusedWithoutShowingItAndTheSettingsNeverShowIt() {
        for (String bad : List.of("short-token", "has space in the token value", "quote\"in-the-token-value")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new MetricsSettings(MetricsSettings.DEFAULT_PATH, true, bad, true));
            assertTrue(e.getMessage().contains("bearer.token"), e.getMessage());
            assertFalse(e.getMessage().contains(bad), e.getMessage());
        }
        String token = "s3cr3t-t0ken-0123456789abcdef";
        MetricsSettings s = new MetricsSettings(MetricsSettings.DEFAULT_PATH, true, token, false);
        assertFalse(s.toString().contains(token), s.toString());
        assertTrue(s.toString().contains("bearer token required"), s.toString());
    }

    @Test
    void theTokenAndLoopbackChecks() {
        String token = "s3cr3t-t0ken-0123456789abcdef";
        assertTrue(MetricsServlet.presents("Bearer " + token, token));
        assertTrue(MetricsServlet.presents("bearer  " + token + " ", token));
        assertFalse(MetricsServlet.presents(null, token));
        assertFalse(MetricsServlet.presents("Bearer " + token + "x", token));
        assertFalse(MetricsServlet.presents("Basic " + token, token));
        assertFalse(MetricsServlet.presents(token, token));

        assertTrue(MetricsServlet.isLoopback("127.0.0.1"));
        assertTrue(MetricsServlet.isLoopback("127.3.4.5"));
        assertTrue(MetricsServlet.isLoopback("::1"));
        assertTrue(MetricsServlet.isLoopback("[0:0:0:0:0:0:0:1]"));
        assertFalse(MetricsServlet.isLoopback("10.0.0.1"));
        assertFalse(MetricsServlet.isLoopback("::ffff:10.0.0.1"));
        assertFalse(MetricsServlet.isLoopback("localhost"), "a name is never looked up");
        assertFalse(MetricsServlet.isLoopback(null));
    }

    @Test
    void concurrentScrapesShareOneInsteadOfQueueing() throws Exception {
        AtomicInteger taken = new AtomicInteger();
        StagingPool slowPool = (StagingPool) Proxy.newProxyInstance(StagingPool.class.getClassLoader(),
                new Class<?>[] {StagingPool.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "stats" -> {
                        taken.incrementAndGet();
                        Thread.sleep(300);
                        yield new StagingStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of());
                    }
                    case "maxBufferSize" -> 1L << 20;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> null;
                });
        MetricSources sources = new MetricSources() {
            @Override
            public TelemetryView telemetry() {
                return null;
            }

            @Override
            public StagingPool staging() {
                return slowPool;
            }

            @Override
            public SessionManager sessions() {
                return null;
            }

            @Override
            public Collection<Transport> transports() {
                return List.of();
            }
        };
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        MetricsServlet servlet = new MetricsServlet(new ObjrdmaMeters(registry, sources), registry);
        int scrapers = 16;
        ExecutorService pool = Executors.newFixedThreadPool(scrapers);
        try {
            List<Callable<byte[]>> all = new ArrayList<>();
            for (int i = 0; i < scrapers; i++) {
                all.add(() -> servlet.scrape("text/plain; version=0.0.4; charset=utf-8"));
            }
            long start = System.nanoTime();
            List<Future<byte[]>> done = pool.invokeAll(all, 60, TimeUnit.SECONDS);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            byte[] first = done.get(0).get();
            for (Future<byte[]> f : done) {
                assertArrayEquals(first, f.get());
            }
            // queued one after another they would take 16 x 300 ms
            assertTrue(taken.get() <= 2, taken.get() + " scrapes taken for " + scrapers + " concurrent scrapers");
            assertTrue(millis < 1500, scrapers + " concurrent scrapes took " + millis + " ms");
        } finally {
            pool.shutdownNow();
            registry.close();
        }
    }
}
