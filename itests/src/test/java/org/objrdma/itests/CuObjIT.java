package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Hashtable;
import java.util.Optional;
import java.util.Random;
import javax.inject.Inject;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.objrdma.api.session.Op;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.TelemetryView;
import org.objrdma.api.transport.Transport;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.CuObjAgent;
import org.objrdma.wire.AgentKeys;
import org.objrdma.wire.CuObjDescriptor;
import org.objrdma.wire.Errno;
import org.objrdma.cuobj.CuObj;
import org.objrdma.cuobj.CuObjAsyncEvent;
import org.objrdma.cuobj.CuObjServer;
import org.objrdma.cuobj.RdmaBuffer;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;

/**
 * The cuObject facade inside Karaf: the component waits for its configuration, then publishes
 * {@link CuObjServer} with the PID's values; GET, PUT and an asynchronous GET against a client in the container
 * (objrdma-client on the installed TCP transport, which is then both the server's transport and the client's
 * memory agent; the separate-JVM end-to-end tests are objrdma-cuobj's own); counters reach telemetry; the
 * C-style constructor works in the container; a bad configuration fails activation naming the property.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class CuObjIT extends ObjRdmaTestSupport {

    private static final String PID = "org.objrdma.cuobj";
    private static final String TCP = "(" + Transport.PROPERTY_NAME + "=tcp)";
    private static final byte[] KEY = new byte[32];
    private static final int SIZE = 1 << 20;

    static {
        new Random(42).nextBytes(KEY);
    }

    @Inject
    ServiceComponentRuntime scr;

    @Configuration
    public Option[] config() throws java.io.IOException {
        String soft = System.getProperty("objrdma.softverbs");
        if (soft == null || !new java.io.File(soft).isFile()) {
            throw new IllegalStateException("objrdma.softverbs must name the software verbs device built by"
                    + " bundles/objrdma-verbs (build it first), was " + soft);
        }
        return options(org.ops4j.pax.exam.CoreOptions.systemProperty("objrdma.softverbs")
                .value(new java.io.File(soft).getCanonicalPath()));
    }

    /**
     * With the verbs transport of the software device registered (ranking 100, above TCP's 0) the facade still binds
     * the TCP transport, the only one that serves its flow (target filter on objrdma.transport.flows), and a GET
     * succeeds; on main the greedy reference took verbs and every transfer answered -EAFNOSUPPORT while
     * isConnected() said true.
     */
    @Test
    public void bindsTheTransportThatServesItsFlowNotTheBestRanked() throws Exception {
        Hashtable<String, Object> verbs = new Hashtable<>();
        verbs.put("library.path", System.getProperty("objrdma.softverbs"));
        configure("org.objrdma.verbs", verbs);
        try {
            Transport softrc = waitForService(Transport.class, "(objrdma.transport.name=verbs:softrc0)");
            ServiceReference<Transport> vref = bundleContext.getServiceReferences(Transport.class,
                    "(objrdma.transport.name=verbs:softrc0)").iterator().next();
            assertEquals(100, vref.getProperty("service.ranking"));
            assertEquals(java.util.List.of(Transport.FLOW_RC_SESSION),
                    java.util.List.of((String[]) vref.getProperty(Transport.PROPERTY_FLOWS)));
            assertFalse(softrc.flows().contains(Transport.FLOW_AGENT_ONE_SIDED));
            configure(goodConfig());
            CuObjServer server = waitForService(CuObjServer.class, null);
            // the gateway binds the interface: one object under both names
            assertSame(server, waitForService(org.objrdma.cuobj.CuObjService.class, null));
            assertEquals("tcp", serverReference().getProperty("objrdma.cuobj.transport"));
            assertEquals("tcp", server.transport().name());
            assertTrue(server.isConnected());
            Transport tcp = waitForService(Transport.class, TCP);
            try (Arena arena = Arena.ofShared();
                 ClientMemory memory = ClientMemory.register(tcp, arena.allocate(SIZE, 4096));
                 CuObjAgent agent = CuObjAgent.open(tcp, KEY)) {
                int ch = server.allocateChannelId();
                MemorySegment host = server.allocHostBuffer(SIZE);
                host.fill((byte) 0x3C);
                RdmaBuffer buf = server.registerBuffer(host, SIZE);
                CuObjDescriptor get = agent.descriptor(memory, 0, SIZE, Op.GET).descriptor();
                assertEquals(SIZE, server.handleGetObject("it-flow", buf, get.remoteAddress(), SIZE, get.format(), ch));
                assertEquals(-1, memory.segment().mismatch(host));
                server.deRegisterBuffer(buf);
                server.freeHostBuffer(host);
            }
        } finally {
            configure(null);
            configure("org.objrdma.verbs", null);
        }
        await("the service goes with its configuration", SERVICE_TIMEOUT, () -> serverReference() == null);
    }

    private void configure(Hashtable<String, Object> props) throws Exception {
        configure(PID, props);
    }

    private void configure(String pid, Hashtable<String, Object> props) throws Exception {
        ServiceReference<ConfigurationAdmin> ref = bundleContext.getServiceReference(ConfigurationAdmin.class);
        ConfigurationAdmin ca = bundleContext.getService(ref);
        try {
            org.osgi.service.cm.Configuration c = ca.getConfiguration(pid, "?");
            if (props == null) {
                c.delete();
            } else {
                c.update(props);
            }
        } finally {
            bundleContext.ungetService(ref);
        }
    }

    private static Hashtable<String, Object> goodConfig() {
        Hashtable<String, Object> p = new Hashtable<>();
        p.put("agent.key", AgentKeys.toHex(KEY));
        p.put("ip", "127.0.0.1");
        p.put("port", 18515);
        p.put("num.dcis", 32);
        p.put("telemetry.flags", 7);
        p.put("allow.addresses", "127.0.0.0/8,::1"); // the client agent of these tests listens on loopback
        return p;
    }

    private Optional<String> failure() {
        for (ComponentDescriptionDTO d : scr.getComponentDescriptionDTOs()) {
            if (PID.equals(d.name)) {
                for (ComponentConfigurationDTO c : scr.getComponentConfigurationDTOs(d)) {
                    if (c.state == ComponentConfigurationDTO.FAILED_ACTIVATION && c.failure != null) {
                        return Optional.of(c.failure);
                    }
                }
            }
        }
        return Optional.empty();
    }

    private ServiceReference<CuObjServer> serverReference() {
        return bundleContext.getServiceReference(CuObjServer.class);
    }

    @Test
    public void servesGetPutAndAsyncWithThePidsConfiguration() throws Exception {
        assertTrue("installed, waiting for its configuration",
                scr.getComponentDescriptionDTOs().stream().anyMatch(d -> PID.equals(d.name)));
        configure(goodConfig());
        try {
            CuObjServer server = waitForService(CuObjServer.class, null);
            ServiceReference<CuObjServer> ref = serverReference();
            assertEquals(18515, ref.getProperty("port"));
            assertEquals(32, ref.getProperty("num.dcis"));
            assertEquals("tcp", ref.getProperty("objrdma.cuobj.transport"));
            assertTrue(server.isConnected());
            assertEquals(CuObj.CUOBJ_PROTO_RDMA_DC_V1, server.proto());
            Transport tcp = waitForService(Transport.class, TCP);
            TelemetryView counters = waitForService(TelemetryView.class, null);
            long getsBefore = counters.value(Counter.CUOBJ_GETS);
            long putsBefore = counters.value(Counter.CUOBJ_PUTS);
            long errorsBefore = counters.value(Counter.CUOBJ_ERRORS);

            try (Arena arena = Arena.ofShared();
                 ClientMemory memory = ClientMemory.register(tcp, arena.allocate(2L * SIZE, 4096));
                 CuObjAgent agent = CuObjAgent.open(tcp, KEY)) {
                int ch = server.allocateChannelId();
                assertEquals(0, ch);
                MemorySegment host = server.allocHostBuffer(SIZE);
                RdmaBuffer buf = server.registerBuffer(host, SIZE);
                assertNotNull(buf);
                byte[] object = new byte[SIZE];
                new Random(1).nextBytes(object);
                MemorySegment.copy(MemorySegment.ofArray(object), 0, host, 0, SIZE);

                CuObjDescriptor get = agent.descriptor(memory, 0, SIZE, Op.GET).descriptor();
                assertEquals(SIZE, server.handleGetObject("it-get", buf, get.remoteAddress(), SIZE, get.format(), ch));
                assertEquals(-1, memory.segment().asSlice(0, SIZE).mismatch(host));

                byte[] upload = new byte[SIZE];
                new Random(2).nextBytes(upload);
                MemorySegment.copy(MemorySegment.ofArray(upload), 0, memory.segment(), SIZE, SIZE);
                CuObjDescriptor put = agent.descriptor(memory, SIZE, SIZE, Op.PUT).descriptor();
                int[] status = {-1};
                assertEquals(SIZE, server.handlePutObject("it-put", buf, put.remoteAddress(), SIZE, put.format(), ch,
                        0, status));
                assertEquals(0, status[0]);
                assertEquals(-1, host.mismatch(memory.segment().asSlice(SIZE, SIZE)));

                assertEquals(0, server.handleGetObject("it-async", buf, get.remoteAddress(), 4096, get.format(), ch,
                        0, null, "handle"));
                CuObjAsyncEvent[] events = new CuObjAsyncEvent[16];
                long deadline = System.nanoTime() + SERVICE_TIMEOUT.toNanos();
                int n;
                while ((n = server.poll(events, 16, ch)) == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(1);
                }
                assertEquals(1, n);
                assertEquals("handle", events[0].asyncHandle);
                assertEquals(0, events[0].status);

                assertEquals(-Errno.EIO, server.handleGetObject("it-bad", buf, get.remoteAddress(), SIZE, "not a descriptor", ch));
                server.deRegisterBuffer(buf);
                server.freeHostBuffer(host);
                server.freeChannelId(ch);
            }
            assertEquals(getsBefore + 2, counters.value(Counter.CUOBJ_GETS));
            assertEquals(putsBefore + 1, counters.value(Counter.CUOBJ_PUTS));
            assertEquals(errorsBefore + 1, counters.value(Counter.CUOBJ_ERRORS));

            // code written against the C constructors finds the component's transport and agent key
            try (CuObjServer classic = new CuObjServer("127.0.0.1", 18516, CuObj.CUOBJ_PROTO_RDMA_DC_V1)) {
                assertTrue(classic.isConnected());
                assertEquals(0, classic.allocateChannelId());
            }
        } finally {
            configure(null);
        }
        await("the service goes with its configuration", SERVICE_TIMEOUT, () -> serverReference() == null);
        // DS unregisters the service before it deactivates the component, which clears the defaults
        await("no component, no default transport or key", SERVICE_TIMEOUT, () -> {
            try (CuObjServer orphan = new CuObjServer("127.0.0.1", 18516, CuObj.CUOBJ_PROTO_RDMA_DC_V1)) {
                return !orphan.isConnected();
            }
        });
    }

    @Test
    public void aBadConfigurationFailsActivationNamingTheProperty() throws Exception {
        try {
            Hashtable<String, Object> bad = goodConfig();
            bad.put("num.dcis", 0);
            configure(bad);
            await("the cuobj component fails activation", SERVICE_TIMEOUT,
                    () -> failure().map(f -> f.contains("num.dcis")).orElse(false));
            await("the bad configuration left no server", SERVICE_TIMEOUT, () -> serverReference() == null);
            // no agent.key is not an error: the server runs in per-principal mode (what the S3 routes use)
            Hashtable<String, Object> keyless = goodConfig();
            keyless.remove("agent.key");
            configure(keyless);
            assertTrue("keyless: per-principal mode", waitForService(CuObjServer.class, null).isConnected());
            configure(goodConfig());
            assertTrue(waitForService(CuObjServer.class, null).isConnected());
        } finally {
            configure(null);
            // the next test must not pick up this test's keyless server before it goes
            await("the keyless server goes with its configuration", SERVICE_TIMEOUT, () -> serverReference() == null);
        }
    }
}
