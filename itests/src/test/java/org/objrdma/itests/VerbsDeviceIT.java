package org.objrdma.itests;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.File;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Set;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WorkRequest;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The verbs bundle inside Karaf. With the real libibverbs on a machine without RDMA it publishes only the
 * reason and everything else runs; configured with the software verbs device it publishes a
 * {@code VerbsDevice} with its properties and a working verbs {@link Transport}; switched back, those go
 * away and the rest stays up.
 *
 * <p>The verbs API types are looked up by name: this module does not compile against objrdma-verbs.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class VerbsDeviceIT extends ObjRdmaTestSupport {

    private static final String PID = "org.objrdma.verbs";
    private static final String VERBS_DEVICE = "org.objrdma.verbs.VerbsDevice";
    private static final String VERBS_RUNTIME = "org.objrdma.verbs.VerbsRuntime";

    @Configuration
    public Option[] config() throws IOException {
        String soft = System.getProperty("objrdma.softverbs");
        if (soft == null || !new File(soft).isFile()) {
            throw new IllegalStateException("objrdma.softverbs must name the software verbs device built by"
                    + " bundles/objrdma-verbs (build it first), was " + soft);
        }
        return options(systemProperty("objrdma.softverbs").value(new File(soft).getCanonicalPath()));
    }

    @Test
    public void theSoftwareDeviceComesAndGoesWithTheConfiguration() throws Exception {
        String soft = System.getProperty("objrdma.softverbs");
        assertNotNull("the software device path must reach the container", soft);
        try {
            Hashtable<String, Object> config = new Hashtable<>();
            config.put("library.path", soft);
            setVerbsConfig(config);

            ServiceReference<?> device = awaitOne(VERBS_DEVICE, "(objrdma.verbs.device=softrc0)");
            assertEquals("0002c90300abcdef", device.getProperty("objrdma.verbs.node.guid"));
            assertEquals(1, device.getProperty("objrdma.verbs.port"));
            assertEquals("ACTIVE", device.getProperty("objrdma.verbs.port.state"));
            assertEquals("INFINIBAND", device.getProperty("objrdma.verbs.link.layer"));
            assertEquals(4096, device.getProperty("objrdma.verbs.active.mtu"));
            assertEquals(1, device.getProperty("objrdma.verbs.lid"));
            // a RoCE-like table: the link-local GID as v1 and v2 first, then the host's addresses, 127.0.0.1 too
            String[] gids = (String[]) device.getProperty("objrdma.verbs.gids");
            assertArrayEquals(new String[] {"fe800000000000000002c90300abcdef", "fe800000000000000002c90300abcdef"},
                    java.util.Arrays.copyOf(gids, 2));
            assertTrue(java.util.List.of(gids).toString(),
                    java.util.List.of(gids).contains("00000000000000000000ffff7f000001"));
            assertTrue((Integer) device.getProperty("objrdma.verbs.max.qp") > 0);
            assertTrue((Integer) device.getProperty("objrdma.verbs.max.mr") > 0);
            assertTrue((Integer) device.getProperty("objrdma.verbs.max.cqe") > 0);
            assertEquals(Boolean.TRUE, device.getProperty("objrdma.verbs.software"));
            ServiceReference<?> runtime = awaitOne(VERBS_RUNTIME, "(objrdma.verbs.available=true)");
            assertEquals(soft, runtime.getProperty("objrdma.verbs.library"));

            Transport transport = waitForService(Transport.class, "(objrdma.transport.name=verbs:softrc0)");
            ServiceReference<Transport> tref = bundleContext.getServiceReferences(Transport.class,
                    "(objrdma.transport.name=verbs:softrc0)").iterator().next();
            assertEquals(100, tref.getProperty(Constants.SERVICE_RANKING));
            assertEquals("VERBS_RC", tref.getProperty(Transport.PROPERTY_LEVEL));
            writeThrough(transport);
        } finally {
            setVerbsConfig(null);
        }

        // back to the default library: no RDMA here, so the device and its transport go away
        await("the software VerbsDevice to go", SERVICE_TIMEOUT, () -> references(VERBS_DEVICE, null).isEmpty());
        await("the verbs transport to go", SERVICE_TIMEOUT,
                () -> references(Transport.class.getName(), "(objrdma.transport.name=verbs:*)").isEmpty());
        ServiceReference<?> runtime = awaitOne(VERBS_RUNTIME, null);
        if (Boolean.FALSE.equals(runtime.getProperty("objrdma.verbs.available"))) {
            String cause = (String) runtime.getProperty("objrdma.verbs.unavailability.cause");
            assertFalse("the software device must not answer for the system library: " + cause,
                    cause.contains("softrc0"));
        }
        assertEverythingElseActive();
    }

    @Test
    public void withoutAnRdmaDeviceOnlyTheReasonIsPublished() throws Exception {
        ServiceReference<?> runtime = awaitOne(VERBS_RUNTIME, null);
        if (Boolean.TRUE.equals(runtime.getProperty("objrdma.verbs.available"))
                && runtime.getProperty("objrdma.verbs.library").equals("libibverbs.so.1")) {
            return; // this machine has an RDMA NIC
        }
        if (!"libibverbs.so.1".equals(runtime.getProperty("objrdma.verbs.library"))) {
            // the other test is mid-way; its finally restores the default
            await("the default library", SERVICE_TIMEOUT, () -> references(VERBS_RUNTIME, null).size() == 1
                    && "libibverbs.so.1".equals(references(VERBS_RUNTIME, null).getFirst()
                    .getProperty("objrdma.verbs.library")));
            runtime = awaitOne(VERBS_RUNTIME, null);
        }
        String cause = (String) runtime.getProperty("objrdma.verbs.unavailability.cause");
        assertNotNull(cause);
        assertTrue(cause, cause.startsWith("no RDMA devices (") || cause.startsWith("cannot load libibverbs.so.1"));
        assertEquals(List.of(), references(VERBS_DEVICE, null));
        assertEquals(List.of(), references(Transport.class.getName(), "(objrdma.transport.name=verbs:*)"));
        assertEverythingElseActive();
    }

    /** A 1 MiB RDMA WRITE between two channels of the transport, bytes compared. */
    private static void writeThrough(Transport transport) throws Exception {
        try (Arena arena = Arena.ofShared();
             Channel a = transport.openChannel(ChannelOptions.DEFAULT);
             Channel b = transport.openChannel(ChannelOptions.DEFAULT)) {
            a.connect(b.localEndpoint());
            b.connect(a.localEndpoint());
            MemorySegment src = arena.allocate(1 << 20, 4096);
            MemorySegment dst = arena.allocate(1 << 20, 4096);
            for (long i = 0; i < src.byteSize(); i += 8) {
                src.set(java.lang.foreign.ValueLayout.JAVA_LONG, i, i * 31 + 7);
            }
            try (MemoryRegion s = transport.register(src, Set.of(Access.LOCAL_WRITE));
                 MemoryRegion d = transport.register(dst, Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE))) {
                a.post(WorkRequest.write(1, ScatterGatherEntry.of(s), new RemoteRegion(d.address(), d.length(), d.rkey())));
                Completion[] out = new Completion[1];
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (a.poll(out) == 0) {
                    assertTrue("no completion within 10 s", System.nanoTime() < deadline);
                    Thread.onSpinWait();
                }
                assertEquals(Completion.success(1, WcOpcode.RDMA_WRITE, 1 << 20), out[0]);
                assertEquals(-1, src.mismatch(dst));
            }
        }
    }

    private void assertEverythingElseActive() throws InterruptedException {
        List<String> notActive = objrdmaBundlesNotActive();
        assertTrue("not active: " + notActive, notActive.isEmpty());
        assertTrue("objrdma-verbs must be installed",
                objrdmaBundles().stream().anyMatch(b -> b.getSymbolicName().equals("objrdma-verbs")));
    }

    /**
     * Replaces ({@code properties}) or deletes ({@code null}) the {@code org.objrdma.verbs} configuration.
     * ConfigurationAdmin is got and ungot around the call itself, so the test does not depend on how long
     * another helper keeps Felix's per-bundle ConfigurationAdmin object alive.
     */
    private void setVerbsConfig(Hashtable<String, Object> properties) throws Exception {
        ServiceReference<ConfigurationAdmin> ref = bundleContext.getServiceReference(ConfigurationAdmin.class);
        assertNotNull("ConfigurationAdmin", ref);
        ConfigurationAdmin ca = bundleContext.getService(ref);
        try {
            org.osgi.service.cm.Configuration c = ca.getConfiguration(PID, "?");
            if (properties == null) {
                c.delete();
            } else {
                c.update(properties);
            }
        } finally {
            bundleContext.ungetService(ref);
        }
    }

    private List<ServiceReference<?>> references(String objectClass, String filter) {
        try {
            ServiceReference<?>[] refs = bundleContext.getAllServiceReferences(objectClass, filter);
            return refs == null ? List.of() : List.of(refs);
        } catch (InvalidSyntaxException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private ServiceReference<?> awaitOne(String objectClass, String filter) throws InterruptedException {
        await(objectClass + " " + (filter == null ? "" : filter), SERVICE_TIMEOUT,
                () -> references(objectClass, filter).size() == 1);
        return references(objectClass, filter).getFirst();
    }
}
