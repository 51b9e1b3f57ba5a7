package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.features;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.Map;
import javax.servlet.Servlet;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.KeyedCounter;
import org.objrdma.api.telemetry.Latency;
import org.objrdma.api.telemetry.TelemetryView;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.CoreOptions;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

/**
 * The optional feature objrdma-metrics installed into our distribution: real S3 requests through the gateway
 * and a real staging lease make counters and gauges move, {@code /metrics} is scraped over HTTP on the
 * gateway's own Jetty, and every value of the text format equals what {@code TelemetryView}, the staging pool
 * and {@code rdma:stats} report in the same test. Then the endpoint's configuration changes live: a new path,
 * a bearer token (issue 24, finding 10: 401 without it, never logged), a bucket-shaped path and a bad path
 * refused keeping the old one, disabled.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class MetricsIT extends ObjRdmaTestSupport {
    private static final String PORT_PROPERTY = "objrdma.it.http.port";
    private static final String PID = "org.objrdma.metrics";
    /** The shipped default: its first segment is no legal bucket name. */
    private static final String DEFAULT_PATH = "/.objrdma/metrics";
    private static final PrincipalId PRINCIPAL = PrincipalId.fromCanonical("metrics-it");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Configuration
    public Option[] config() {
        int port = freePort();
        return options(
                features(featuresUrl(), "objrdma-metrics"),
                editConfigurationFilePut("etc/org.ops4j.pax.web.cfg", "org.osgi.service.http.port", String.valueOf(port)),
                CoreOptions.systemProperty(PORT_PROPERTY).value(String.valueOf(port)));
    }

    @Test
    public void theScrapeEqualsTelemetryAndTheEndpointIsReconfiguredLive() throws Exception {
        TelemetryView telemetry = waitForService(TelemetryView.class, null);
        StagingPool pool = waitForService(StagingPool.class, null);
        waitForService(Servlet.class, "(component.name=org.objrdma.s3)");
        waitForService(Servlet.class, "(osgi.http.whiteboard.servlet.name=objrdma-metrics)");
        await(DEFAULT_PATH + " answering", SERVICE_TIMEOUT, () -> status(DEFAULT_PATH) == 200);
        // the default path is no bucket's: /metrics is the S3 gateway's (an anonymous bucket request, 403 in S3 XML)
        HttpResponse<String> bucketNamedMetrics = http.send(HttpRequest.newBuilder(uri("/metrics")).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(403, bucketNamedMetrics.statusCode());
        assertTrue(bucketNamedMetrics.body(), bucketNamedMetrics.body().contains("<Code>AccessDenied</Code>"));

        // real work: three unsigned S3 requests (403 AccessDenied each) and a staging lease held over the scrape
        URI bucket = uri("/metrics-it-bucket");
        long requests = telemetry.value(Counter.S3_REQUESTS);
        for (int i = 0; i < 3; i++) {
            assertEquals(403, http.send(HttpRequest.newBuilder(bucket).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode());
        }
        // the servlet counts after the answer is flushed: wait for the counters, not for a fixed time
        await("S3_REQUESTS to move by 3", SERVICE_TIMEOUT, () -> telemetry.value(Counter.S3_REQUESTS) >= requests + 3);
        try (StagingLease lease = pool.borrow(100_000, PRINCIPAL, "metrics-it")) {
            Map<String, Double> scraped = quiescentScrape(telemetry);
            for (Counter c : Counter.values()) {
                assertEquals(c.id(), (double) telemetry.value(c), scraped.get(promCounter(c.id())), 0);
            }
            assertTrue(scraped.get("objrdma_s3_requests_total") >= 3);
            assertTrue(scraped.get("objrdma_staging_borrows_total") >= 1);
            long denied = telemetry.keyed(KeyedCounter.S3_ERRORS_BY_CODE).get("AccessDenied");
            assertTrue(denied >= 3);
            assertEquals((double) denied, scraped.get("objrdma_s3_errors_by_code_total{code=\"AccessDenied\"}"), 0);
            var s3 = telemetry.latency(Latency.S3_REQUEST);
            assertEquals((double) s3.count(), scraped.get("objrdma_s3_request_latency_count_total"), 0);
            assertEquals(s3.p99Nanos() / 1e9, scraped.get("objrdma_s3_request_latency_seconds{quantile=\"0.99\"}"), 1e-12);
            assertEquals(s3.maxNanos() / 1e9, scraped.get("objrdma_s3_request_latency_seconds_max"), 1e-12);
            assertTrue(s3.maxNanos() > 0);

            StagingStats stats = pool.stats();
            assertTrue(stats.borrowed() >= 1);
            assertEquals((double) stats.borrowed(), scraped.get("objrdma_staging_leases_lent"), 0);
            assertEquals((double) stats.bytesBorrowed(), scraped.get("objrdma_staging_bytes_lent"), 0);
            assertEquals((double) stats.bytesAllocated(), scraped.get("objrdma_staging_bytes_held"), 0);
            long classLent = stats.classes().stream().filter(c -> c.bufferSize() == 131072).findFirst()
                    .orElseThrow().borrowed();
            assertEquals((double) classLent, scraped.get("objrdma_staging_class_lent{size=\"131072\"}"), 0);
            assertEquals(1.0, scraped.get("objrdma_transport_available{transport=\"tcp\"}"), 0);

            // rdma:stats reads the same counters and histograms
            String shell = executeCommand("rdma:stats --no-format");
            assertEquals(String.valueOf(telemetry.value(Counter.S3_REQUESTS)),
                    S3CountersIT.cell(shell, Counter.S3_REQUESTS.id(), 1));
            assertEquals(String.valueOf(telemetry.value(Counter.STAGING_BORROWS)),
                    S3CountersIT.cell(shell, Counter.STAGING_BORROWS.id(), 1));
            assertEquals(String.valueOf(s3.count()), S3CountersIT.cell(shell, Latency.S3_REQUEST.id(), 1));
        }

        // live reconfiguration: a new path; the old one falls back to the S3 gateway's "/*"
        Hashtable<String, Object> moved = new Hashtable<>();
        moved.put("path", "/_prom/objrdma");
        updateConfig(PID, moved);
        await("the endpoint at /_prom/objrdma", SERVICE_TIMEOUT, () -> status("/_prom/objrdma") == 200);
        await(DEFAULT_PATH + " no longer the endpoint", SERVICE_TIMEOUT, () -> status(DEFAULT_PATH) != 200);
        await("the change logged", SERVICE_TIMEOUT,
                () -> logHasLine("Prometheus endpoint changed live", "serving at /_prom/objrdma"));

        // a bearer token: a scrape without it or with another one is 401, with it 200; the token is never logged
        String token = "metrics-it-" + Long.toHexString(System.nanoTime()) + "-token";
        Hashtable<String, Object> guarded = new Hashtable<>();
        guarded.put("path", "/_prom/objrdma");
        guarded.put("bearer.token", token);
        updateConfig(PID, guarded);
        await("the token required", SERVICE_TIMEOUT, () -> status("/_prom/objrdma") == 401);
        assertEquals(401, status("/_prom/objrdma", "Bearer " + token + "x"));
        assertEquals(200, status("/_prom/objrdma", "Bearer " + token));
        await("the change logged", SERVICE_TIMEOUT,
                () -> logHasLine("Prometheus endpoint changed live", "bearer token required"));
        assertFalse("the token is in karaf.log", logHasLine(token));
        updateConfig(PID, moved);
        await("no token any more", SERVICE_TIMEOUT, () -> status("/_prom/objrdma") == 200);

        // a path whose first segment is a legal bucket name would hide that bucket: refused, naming the property
        Hashtable<String, Object> bucketShaped = new Hashtable<>();
        bucketShaped.put("path", "/metrics");
        updateConfig(PID, bucketShaped);
        await("the refusal logged", SERVICE_TIMEOUT,
                () -> logHasLine("Configuration of org.objrdma.metrics refused", "path = /metrics", "legal S3 bucket name"));
        assertEquals(200, status("/_prom/objrdma"));

        // a bad path is refused naming the property; the endpoint stays where it was
        Hashtable<String, Object> bad = new Hashtable<>();
        bad.put("path", "/prom/*");
        updateConfig(PID, bad);
        await("the refusal logged", SERVICE_TIMEOUT,
                () -> logHasLine("Configuration of org.objrdma.metrics refused", "path = /prom/*"));
        assertEquals(200, status("/_prom/objrdma"));

        // disabled: nothing served at the path any more
        Hashtable<String, Object> off = new Hashtable<>();
        off.put("path", "/_prom/objrdma");
        off.put("enabled", false);
        updateConfig(PID, off);
        await("the endpoint gone", SERVICE_TIMEOUT, () -> status("/_prom/objrdma") != 200);
        assertFalse(bundleContext.getServiceReferences(Servlet.class,
                "(osgi.http.whiteboard.servlet.name=objrdma-metrics)").iterator().hasNext());
        deleteConfig(PID);
        await(DEFAULT_PATH + " back with the defaults", SERVICE_TIMEOUT, () -> status(DEFAULT_PATH) == 200);
    }

    /**
     * A scrape during which no counter moved: telemetry read before and after it agree (otherwise a
     * background event raced the scrape, and it is taken again).
     */
    private Map<String, Double> quiescentScrape(TelemetryView telemetry) throws Exception {
        for (int attempt = 0; attempt < 50; attempt++) {
            Map<Counter, Long> before = telemetry.snapshot();
            var before3 = telemetry.latency(Latency.S3_REQUEST);
            Map<String, Double> scraped = scrape(DEFAULT_PATH);
            if (before.equals(telemetry.snapshot()) && before3.equals(telemetry.latency(Latency.S3_REQUEST))) {
                return scraped;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the counters never stood still for one scrape");
    }

    /** {@code name{labels}} → value of every sample line of the Prometheus text format at {@code path}. */
    private Map<String, Double> scrape(String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(uri(path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse(""),
                r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"));
        assertTrue(r.body(), r.body().contains("# TYPE objrdma_s3_requests_total counter"));
        Map<String, Double> samples = new HashMap<>();
        for (String line : r.body().split("\n")) {
            if (!line.isBlank() && !line.startsWith("#")) {
                int space = line.lastIndexOf(' ');
                samples.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
            }
        }
        return samples;
    }

    private int status(String path) {
        return status(path, null);
    }

    private int status(String path, String authorization) {
        try {
            HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).GET();
            if (authorization != null) {
                b.header("Authorization", authorization);
            }
            return http.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    private static URI uri(String path) {
        return URI.create("http://127.0.0.1:" + Integer.getInteger(PORT_PROPERTY) + path);
    }

    private static String promCounter(String id) {
        return id.replace('.', '_') + "_total";
    }
}
