package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.KeyedCounter;
import org.objrdma.api.telemetry.Latency;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.telemetry.TelemetryView;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Transport;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The org.objrdma MBeans, read from the MBean server Karaf's JMX whiteboard registered them in, each
 * against the service it reports in the same test; an operation changes what the service then shows.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class RdmaJmxIT extends ObjRdmaTestSupport {
    private static final PrincipalId CAROL = PrincipalId.fromCanonical("jmx-it:carol");

    /** Karaf's management locates the platform MBean server; the JMX whiteboard registers into it. */
    private final MBeanServer mbeanServer = ManagementFactory.getPlatformMBeanServer();

    private static final String HTTP_PORT_PROPERTY = "objrdma.it.http.port";

    @Configuration
    public Option[] config() {
        int httpPort = freePort();
        // the sessions these tests prepare name a client endpoint on loopback, which the session manager
        // refuses unless its allow list permits it
        return org.ops4j.pax.exam.OptionUtils.combine(baseOptions(),
                org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut(
                        "etc/org.objrdma.session.cfg", "allow.addresses", "127.0.0.0/8,::1"),
                org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut(
                        "etc/org.ops4j.pax.web.cfg", "org.osgi.service.http.port", String.valueOf(httpPort)),
                org.ops4j.pax.exam.CoreOptions.systemProperty(HTTP_PORT_PROPERTY).value(String.valueOf(httpPort)));
    }

    private ObjectName registered(String name) throws Exception {
        ObjectName on = new ObjectName(name);
        await(name + " registered", SERVICE_TIMEOUT, () -> mbeanServer.isRegistered(on));
        return on;
    }

    private static Map<Object, Object> map(Object tabular) {
        Map<Object, Object> out = new TreeMap<>();
        for (Object row : ((TabularData) tabular).values()) {
            CompositeData c = (CompositeData) row;
            out.put(c.get("key"), c.get("value"));
        }
        return out;
    }

    @Test
    public void poolMBeanMatchesStatsWithALeaseOut() throws Exception {
        StagingPool pool = waitForService(StagingPool.class, null);
        ObjectName on = registered("org.objrdma:type=pool,name=staging");
        // another test's sessions hand their staging back asynchronously: start from a quiet pool
        await("no staging lent", SERVICE_TIMEOUT, () -> Long.valueOf(0L).equals(attribute(on, "Lent")));
        try (StagingLease lease = pool.borrow(4096, CAROL, "jmx-it")) {
            StagingStats stats = pool.stats();
            assertEquals(stats.borrowed(), mbeanServer.getAttribute(on, "Lent"));
            assertTrue(stats.borrowed() >= 1);
            assertEquals(stats.bytesBorrowed(), mbeanServer.getAttribute(on, "BytesLent"));
            assertEquals(pool.maxBufferSize(), mbeanServer.getAttribute(on, "MaxBufferSize"));
            Map<Object, Object> lent = map(mbeanServer.getAttribute(on, "ClassesLent"));
            for (StagingStats.SizeClass c : stats.classes()) {
                assertEquals(c.borrowed(), lent.get(c.bufferSize()));
            }
            assertTrue(lease.size() >= 4096);
        }
        await("the lease back", SERVICE_TIMEOUT, () -> Long.valueOf(0L).equals(attribute(on, "Lent")));
    }

    /** An attribute, or null while the MBean is being registered again (its component restarted). */
    private Object attribute(ObjectName on, String name) {
        try {
            return mbeanServer.getAttribute(on, name);
        } catch (Exception notThereNow) {
            return null;
        }
    }

    @Test
    public void sessionsMBeanListsAndCancelsAsTheOwner() throws Exception {
        ObjectName on = registered("org.objrdma:type=sessions,name=rc");
        // another test's pin reconfigures the session manager: take the instance that is live now
        java.util.concurrent.atomic.AtomicReference<SessionManager> live = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<SessionResult<PrepareResponse>> prepared =
                new java.util.concurrent.atomic.AtomicReference<>();
        await("a live session manager accepting PREPARE", SERVICE_TIMEOUT, () -> {
            SessionManager candidate = waitForService(SessionManager.class, null);
            SessionResult<PrepareResponse> r = candidate.prepare(new PrepareRequest(CAROL, Op.PUT, "/jmx-it/a", 0,
                    4096, 3, 0x53, new EndpointInfo.Tcp(new java.net.InetSocketAddress("127.0.0.1", 9), 0,
                            new byte[16]), null));
            live.set(candidate);
            prepared.set(r);
            return r.status().isOk();
        });
        SessionManager sessions = live.get();
        SessionResult<PrepareResponse> p = prepared.get();
        String id = p.value().sessionId().hex();
        // the MBean follows the session manager the pin restarted: wait until it is bound to the live one
        await("the sessions MBean on the live session manager", SERVICE_TIMEOUT,
                () -> Integer.valueOf(sessions.snapshot().size()).equals(attribute(on, "Count")));
        String[] lines = (String[]) mbeanServer.getAttribute(on, "Sessions");
        assertTrue(List.of(lines).stream().anyMatch(l -> l.startsWith(id + "\t" + "PUT\t/jmx-it/a\t")));
        String wrongOwner = (String) mbeanServer.invoke(on, "cancel",
                new Object[] {id, PrincipalId.fromCanonical("jmx-it:mallory").toHex()},
                new String[] {String.class.getName(), String.class.getName()});
        assertTrue(wrongOwner, !wrongOwner.equals("OK"));
        assertTrue(sessions.snapshot().stream().anyMatch(s -> s.sessionId().hex().equals(id)));
        assertEquals("OK", mbeanServer.invoke(on, "cancel", new Object[] {id, CAROL.toHex()},
                new String[] {String.class.getName(), String.class.getName()}));
        await("the session gone", SERVICE_TIMEOUT,
                () -> sessions.snapshot().stream().noneMatch(s -> s.sessionId().hex().equals(id)));
    }

    @Test
    public void telemetryMBeanReadsEveryCounterAndMoves() throws Exception {
        TelemetryView telemetry = waitForService(TelemetryView.class, null);
        StagingPool pool = waitForService(StagingPool.class, null);
        ObjectName on = registered("org.objrdma:type=telemetry,name=counters");
        Map<Object, Object> counters = map(mbeanServer.getAttribute(on, "Counters"));
        for (Counter c : Counter.values()) {
            assertTrue(c.id(), counters.containsKey(c.id()));
        }
        long before = (Long) mbeanServer.invoke(on, "value", new Object[] {Counter.STAGING_BORROWS.id()},
                new String[] {String.class.getName()});
        pool.borrow(4096, CAROL, "jmx-it-telemetry").close();
        long after = (Long) mbeanServer.invoke(on, "value", new Object[] {Counter.STAGING_BORROWS.id()},
                new String[] {String.class.getName()});
        assertTrue(after > before);
        assertTrue(after <= telemetry.value(Counter.STAGING_BORROWS));
        try {
            mbeanServer.invoke(on, "value", new Object[] {"no.such.counter"}, new String[] {String.class.getName()});
            fail("an unknown counter id must be refused");
        } catch (Exception e) {
            Throwable cause = e;
            while (cause.getCause() != null) {
                cause = cause.getCause();
            }
            assertTrue(String.valueOf(cause.getMessage()), String.valueOf(cause.getMessage()).contains("no.such.counter"));
        }
    }

    @Test
    public void telemetryMBeanShowsLatenciesAndKeyedCounters() throws Exception {
        Telemetry telemetry = waitForService(Telemetry.class, null);
        ObjectName on = registered("org.objrdma:type=telemetry,name=counters");
        telemetry.record(Latency.SESSION_DATA_PHASE, 7_000_000);
        telemetry.increment(KeyedCounter.S3_ERRORS_BY_CODE, "JmxItCode");
        Map<Object, Object> latencies = map(mbeanServer.getAttribute(on, "Latencies"));
        for (Latency l : Latency.values()) {
            assertTrue(l.id(), latencies.containsKey(l.id()));
        }
        Map<Object, Object> dataPhase = map(latencies.get(Latency.SESSION_DATA_PHASE.id()));
        assertEquals(telemetry.latency(Latency.SESSION_DATA_PHASE).count(), dataPhase.get("count"));
        assertTrue(dataPhase.toString(), (Long) dataPhase.get("count") >= 1);
        assertTrue(dataPhase.toString(), (Long) dataPhase.get("maxNanos") >= 7_000_000);
        Map<Object, Object> keyed = map(mbeanServer.getAttribute(on, "KeyedCounters"));
        Map<Object, Object> byCode = map(keyed.get(KeyedCounter.S3_ERRORS_BY_CODE.id()));
        assertEquals(1L, byCode.get("JmxItCode"));
    }

    @Test
    public void transportsMBeanMatchesTheRegistryAndPinsThroughConfigAdmin() throws Exception {
        waitForService(Transport.class, "(objrdma.transport.name=tcp)");
        waitForService(SessionManager.class, null);
        ObjectName on = registered("org.objrdma:type=transports,name=registry");
        Map<Object, Object> transports = map(mbeanServer.getAttribute(on, "Transports"));
        for (ServiceReference<Transport> ref : bundleContext.getServiceReferences(Transport.class, null)) {
            String row = (String) transports.get(ref.getProperty(Transport.PROPERTY_NAME));
            assertTrue(row, row.endsWith("\t" + ref.getProperty(Constants.SERVICE_ID)));
        }
        await("the session manager bound", SERVICE_TIMEOUT, () -> {
            try {
                return String.valueOf(map(mbeanServer.getAttribute(on, "Bindings")).get("org.objrdma.session.transport"))
                        .startsWith("tcp#");
            } catch (Exception e) {
                return false;
            }
        });
        ConfigurationAdmin ca = waitForService(ConfigurationAdmin.class, null);
        String pinned = (String) mbeanServer.invoke(on, "pin", new Object[] {"org.objrdma.session", "tcp"},
                new String[] {String.class.getName(), String.class.getName()});
        Object target = ca.getConfiguration("org.objrdma.session", null).getProperties().get("transport.target");
        assertTrue(pinned, pinned.contains(String.valueOf(target)));
        assertEquals("(objrdma.transport.name=tcp)", target); // the session manager declares no target itself
        mbeanServer.invoke(on, "unpin", new Object[] {"org.objrdma.session"}, new String[] {String.class.getName()});
        assertEquals(null, ca.getConfiguration("org.objrdma.session", null).getProperties().get("transport.target"));
    }

    /**
     * The gateway MBean after real unsigned S3 requests (403 AccessDenied): its state is the SCR state of
     * org.objrdma.s3, its counts are the telemetry's, and every figure is the one rdma:gateway prints.
     */
    @Test
    public void gatewayMBeanMatchesRdmaGatewayAndTheServiceState() throws Exception {
        TelemetryView telemetry = waitForService(TelemetryView.class, null);
        waitForService(javax.servlet.Servlet.class, "(component.name=org.objrdma.s3)");
        ObjectName on = registered("org.objrdma:type=gateway,name=s3");
        long requests = telemetry.value(Counter.S3_REQUESTS);
        long denied = telemetry.keyed(KeyedCounter.S3_ERRORS_BY_CODE).getOrDefault("AccessDenied", 0L);
        java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
        java.net.URI uri = java.net.URI.create("http://127.0.0.1:" + Integer.getInteger(HTTP_PORT_PROPERTY) + "/jmx-it");
        // the whiteboard may serve the servlet a moment after its registration (Pax Web answers 404 until
        // then); count every answer the gateway gave (403 AccessDenied, unsigned)
        int[] answered = {0};
        await("the gateway answering", SERVICE_TIMEOUT, () -> {
            try {
                int status = http.send(java.net.http.HttpRequest.newBuilder(uri).GET().build(),
                        java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode();
                answered[0] += status == 403 ? 1 : 0;
                return status == 403;
            } catch (Exception notYet) {
                return false;
            }
        });
        assertEquals(403, http.send(java.net.http.HttpRequest.newBuilder(uri).GET().build(),
                java.net.http.HttpResponse.BodyHandlers.discarding()).statusCode());
        long expected = requests + answered[0] + 1;
        // the servlet counts after the answer is flushed: wait for the counter, then compare all three views
        await("S3_REQUESTS at " + expected, SERVICE_TIMEOUT, () -> telemetry.value(Counter.S3_REQUESTS) >= expected);
        await("AccessDenied moved by two or more", SERVICE_TIMEOUT,
                () -> telemetry.keyed(KeyedCounter.S3_ERRORS_BY_CODE).getOrDefault("AccessDenied", 0L) >= denied + 2);
        assertEquals(expected, telemetry.value(Counter.S3_REQUESTS));

        String shell = executeCommand("rdma:gateway --no-format");
        String[] row = null;
        for (String line : shell.split("\\R")) {
            if (line.startsWith("org.objrdma.s3")) {
                row = java.util.Arrays.stream(line.split("\t")).map(String::strip).toArray(String[]::new);
            }
        }
        org.junit.Assert.assertNotNull("rdma:gateway printed no row:\n" + shell, row);
        var scr = waitForService(org.osgi.service.component.runtime.ServiceComponentRuntime.class, null);
        var description = scr.getComponentDescriptionDTOs().stream().filter(d -> d.name.equals("org.objrdma.s3"))
                .findFirst().orElseThrow();
        int state = scr.getComponentConfigurationDTOs(description).iterator().next().state;
        assertEquals(org.osgi.service.component.runtime.dto.ComponentConfigurationDTO.ACTIVE, state);
        assertEquals("org.objrdma.s3", mbeanServer.getAttribute(on, "Component"));
        assertEquals("ACTIVE", mbeanServer.getAttribute(on, "State"));
        assertEquals(row[1], mbeanServer.getAttribute(on, "State"));
        String endpoints = (String) mbeanServer.getAttribute(on, "Endpoints");
        assertEquals(row[2], endpoints);
        assertTrue(endpoints, endpoints.contains(":" + Integer.getInteger(HTTP_PORT_PROPERTY)));
        assertEquals(telemetry.value(Counter.S3_REQUESTS), mbeanServer.getAttribute(on, "Requests"));
        assertEquals(row[3], String.valueOf(mbeanServer.getAttribute(on, "Requests")));
        assertEquals(telemetry.value(Counter.S3_ERRORS), mbeanServer.getAttribute(on, "Errors"));
        assertEquals(row[4], String.valueOf(mbeanServer.getAttribute(on, "Errors")));
        Map<Object, Object> byCode = map(mbeanServer.getAttribute(on, "ErrorsByCode"));
        assertEquals(new TreeMap<>(telemetry.keyed(KeyedCounter.S3_ERRORS_BY_CODE)), byCode);
        assertEquals(String.valueOf(byCode.get("AccessDenied")), S3CountersIT.cell(shell, "AccessDenied", 1));
        assertTrue(byCode.toString(), (Long) byCode.get("AccessDenied") >= denied + 2);
    }
}
