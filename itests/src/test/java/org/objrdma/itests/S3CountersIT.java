package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import javax.servlet.Servlet;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.KeyedCounter;
import org.objrdma.api.telemetry.Latency;
import org.objrdma.api.telemetry.TelemetryView;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

/**
 * The gateway's counters move with real HTTP requests: S3_REQUESTS once per request, S3_ERRORS once per
 * error answer (an unsigned request is 403 AccessDenied), both read back through rdma:stats too; the
 * AccessDenied count of the errors by code in rdma:gateway, and the S3 request latency histogram's count in
 * rdma:stats, move by the same three.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class S3CountersIT extends ObjRdmaTestSupport {
    private static final String PORT_PROPERTY = "objrdma.it.http.port";

    @Configuration
    public Option[] config() {
        int port = freePort();
        return options(
                editConfigurationFilePut("etc/org.ops4j.pax.web.cfg", "org.osgi.service.http.port", String.valueOf(port)),
                org.ops4j.pax.exam.CoreOptions.systemProperty(PORT_PROPERTY).value(String.valueOf(port)));
    }

    @Test
    public void everyRequestCountsAndEveryErrorAnswerCountsOnce() throws Exception {
        waitForService(ObjectStore.class, null);
        waitForService(Servlet.class, "(component.name=org.objrdma.s3)");
        TelemetryView telemetry = waitForService(TelemetryView.class, null);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        URI uri = URI.create("http://127.0.0.1:" + Integer.getInteger(PORT_PROPERTY) + "/some-bucket");
        // the whiteboard may take a moment to serve the servlet after its registration
        await("the gateway answering", SERVICE_TIMEOUT, () -> {
            try {
                return http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.discarding())
                        .statusCode() >= 400;
            } catch (Exception e) {
                return false;
            }
        });
        // let the probe's own counting land before the baseline is taken
        long settled;
        do {
            settled = telemetry.value(Counter.S3_REQUESTS);
            Thread.sleep(300);
        } while (telemetry.value(Counter.S3_REQUESTS) != settled);
        long requests = telemetry.value(Counter.S3_REQUESTS);
        long errors = telemetry.value(Counter.S3_ERRORS);
        long denied = accessDenied(telemetry);
        long timed = telemetry.latency(Latency.S3_REQUEST).count();
        for (int i = 0; i < 3; i++) {
            org.junit.Assert.assertTrue(http.send(HttpRequest.newBuilder(uri).GET().build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() >= 400);
        }
        // the servlet counts after the answer is flushed, so the client can see the answer a moment before
        // the counter moves; wait for it, then prove it moved by exactly three (no double counting)
        await("S3_REQUESTS to reach " + (requests + 3), SERVICE_TIMEOUT,
                () -> telemetry.value(Counter.S3_REQUESTS) >= requests + 3);
        await("S3_ERRORS to reach " + (errors + 3), SERVICE_TIMEOUT,
                () -> telemetry.value(Counter.S3_ERRORS) >= errors + 3);
        await("the S3 request latency count to reach " + (timed + 3), SERVICE_TIMEOUT,
                () -> telemetry.latency(Latency.S3_REQUEST).count() >= timed + 3);
        Thread.sleep(200);
        assertEquals(requests + 3, telemetry.value(Counter.S3_REQUESTS));
        assertEquals(denied + 3, accessDenied(telemetry));
        assertEquals(timed + 3, telemetry.latency(Latency.S3_REQUEST).count());
        assertEquals(errors + 3, telemetry.value(Counter.S3_ERRORS));
        String[] gateway = null;
        for (String line : executeCommand("rdma:gateway --no-format").split("\\R")) {
            if (line.startsWith("org.objrdma.s3")) {
                gateway = java.util.Arrays.stream(line.split("\t")).map(String::strip).toArray(String[]::new);
            }
        }
        org.junit.Assert.assertNotNull("rdma:gateway printed no row", gateway);
        assertEquals("ACTIVE", gateway[1]);
        org.junit.Assert.assertTrue(gateway[2], gateway[2].contains(":" + Integer.getInteger(PORT_PROPERTY)));
        assertEquals(String.valueOf(telemetry.value(Counter.S3_REQUESTS)), gateway[3]);
        assertEquals(String.valueOf(telemetry.value(Counter.S3_ERRORS)), gateway[4]);
        assertEquals(String.valueOf(denied + 3), cell(executeCommand("rdma:gateway --no-format"), "AccessDenied", 1));
        String stats = executeCommand("rdma:stats --no-format");
        for (String line : stats.split("\\R")) {
            String[] cells = line.split("\t");
            if (cells[0].strip().equals(Counter.S3_ERRORS.id())) {
                assertEquals(telemetry.value(Counter.S3_ERRORS), Long.parseLong(cells[1].strip()));
            }
        }
        String latencyId = Latency.S3_REQUEST.id();
        assertEquals(String.valueOf(timed + 3), cell(stats, latencyId, 1));
        double p50 = Double.parseDouble(cell(stats, latencyId, 2));
        double p99 = Double.parseDouble(cell(stats, latencyId, 3));
        double max = Double.parseDouble(cell(stats, latencyId, 4));
        org.junit.Assert.assertTrue(stats, 0 < p50 && p50 <= p99 && p99 <= max);
    }

    private static long accessDenied(TelemetryView telemetry) {
        return telemetry.keyed(KeyedCounter.S3_ERRORS_BY_CODE).getOrDefault("AccessDenied", 0L);
    }

    /** Column {@code column} of the --no-format row whose first cell is {@code first}. */
    static String cell(String output, String first, int column) {
        for (String line : output.split("\\R")) {
            String[] cells = line.split("\t");
            if (cells[0].strip().equals(first) && cells.length > column) {
                return cells[column].strip();
            }
        }
        throw new AssertionError("no row '" + first + "' in:\n" + output);
    }
}
