package org.objrdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.Transport;
import org.objrdma.verbs.LinkLayer;
import org.objrdma.verbs.PortState;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.VerbsRuntime;
import org.objrdma.testsupport.FakeBundleContext;
import org.objrdma.verbs.testsupport.SoftVerbs;
import org.osgi.framework.Constants;

/** What the component publishes for each configuration, and that it takes everything back. */
class VerbsComponentTest {

    @AfterEach
    void noPollerThreadOutlivesItsComponent() {
        List<String> pollers = Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(n -> n.startsWith("objrdma-verbs-poller")).toList();
        assertEquals(List.of(), pollers, "poller threads left running");
    }

    @Test
    void theSoftwareDeviceIsPublishedWithItsProperties() {
        try (ComponentFixture f = ComponentFixture.software()) {
            VerbsRuntime runtime = f.runtime();
            assertTrue(runtime.isAvailable(), runtime.unavailabilityCause().orElse(""));
            assertEquals(List.of("softrc0"), runtime.devices());
            assertEquals(SoftVerbs.library(), runtime.library());

            List<FakeBundleContext.Registered> devices = f.devices();
            assertEquals(1, devices.size());
            Map<String, Object> p = devices.getFirst().properties;
            assertEquals("softrc0", p.get(VerbsDevice.PROPERTY_DEVICE_NAME));
            assertEquals("0002c90300abcdef", p.get(VerbsDevice.PROPERTY_NODE_GUID));
            assertEquals(1, p.get(VerbsDevice.PROPERTY_PORT));
            assertEquals("ACTIVE", p.get(VerbsDevice.PROPERTY_PORT_STATE));
            assertEquals("INFINIBAND", p.get(VerbsDevice.PROPERTY_LINK_LAYER));
            assertEquals(4096, p.get(VerbsDevice.PROPERTY_ACTIVE_MTU));
            assertEquals(1, p.get(VerbsDevice.PROPERTY_LID));
            // a RoCE-like table: the link-local GID as v1 and v2, then the host's addresses (127.0.0.1 always)
            String[] gids = (String[]) p.get(VerbsDevice.PROPERTY_GIDS);
            assertArrayEquals(new String[] {"fe800000000000000002c90300abcdef", "fe800000000000000002c90300abcdef"},
                    java.util.Arrays.copyOf(gids, 2));
            assertTrue(List.of(gids).contains("00000000000000000000ffff7f000001"), List.of(gids).toString());
            assertEquals(0, p.get(VerbsDevice.PROPERTY_GID_INDEX));
            assertTrue((Integer) p.get(VerbsDevice.PROPERTY_MAX_QP) > 0);
            assertTrue((Integer) p.get(VerbsDevice.PROPERTY_MAX_MR) > 0);
            assertTrue((Integer) p.get(VerbsDevice.PROPERTY_MAX_CQE) > 0);
            assertEquals(Boolean.TRUE, p.get(VerbsDevice.PROPERTY_SOFTWARE));

            VerbsDevice device = (VerbsDevice) devices.getFirst().service;
            assertEquals(PortState.ACTIVE, device.portState());
            assertEquals(LinkLayer.INFINIBAND, device.linkLayer());
            assertEquals(Mtu.MTU_4096, device.activeMtu());
            assertEquals(0x0002c90300abcdefL, device.nodeGuid());
            assertEquals("verbs:softrc0", device.transportName());

            FakeBundleContext.Registered t = f.transports().getFirst();
            assertEquals("verbs:softrc0", t.properties.get(Transport.PROPERTY_NAME));
            assertEquals("VERBS_RC", t.properties.get(Transport.PROPERTY_LEVEL));
            assertEquals(100, t.properties.get(Constants.SERVICE_RANKING));
            assertTrue(((Transport) t.service).isAvailable());
        }
    }

    @Test
    void theRealLibraryWithoutDevicesPublishesOnlyTheReasonAndLeavesNothingBehind() {
        ComponentFixture f = ComponentFixture.activate(Map.of("library_path", SoftVerbs.realLibrary()));
        try {
            VerbsRuntime runtime = f.runtime();
            if (runtime.isAvailable()) {
                return; // a machine with a NIC
            }
            assertTrue(runtime.unavailabilityCause().orElseThrow().startsWith("no RDMA devices ("),
                    runtime.unavailabilityCause().orElseThrow());
            assertEquals(List.of(), f.devices());
            assertEquals(List.of(), f.transports());
            assertEquals(1, f.bundle.live().size(), "only the VerbsRuntime");
            assertEquals(Boolean.FALSE, f.bundle.live(VerbsRuntime.class).getFirst().properties
                    .get(VerbsRuntime.PROPERTY_AVAILABLE));
        } finally {
            f.close();
        }
        assertEquals(List.of(), f.bundle.live(), "deactivation must take back every registration");
    }

    @Test
    void activationCyclesLeakNeitherFileDescriptorsNorThreads() throws Exception {
        // warm up: the first loads map the libraries and start JDK-internal threads once
        ComponentFixture.activate(Map.of("library_path", SoftVerbs.realLibrary())).close();
        try (ComponentFixture f = ComponentFixture.software()) {
            f.transport().openChannel(ChannelOptions.DEFAULT);
        }
        long fds = openFileDescriptors();
        int threads = Thread.activeCount();
        try (Arena arena = Arena.ofShared()) {
            for (int i = 0; i < 20; i++) {
                ComponentFixture.activate(Map.of("library_path", SoftVerbs.realLibrary())).close();
                try (ComponentFixture f = ComponentFixture.software()) {
                    // a channel and a region their owner never closes: deactivation must
                    Transport t = f.transport();
                    t.openChannel(ChannelOptions.DEFAULT);
                    t.register(arena.allocate(4096), Set.of(Access.LOCAL_WRITE));
                }
            }
        }
        assertEquals(fds, openFileDescriptors(), "file descriptors after 20 activation cycles");
        assertTrue(Thread.activeCount() <= threads, "threads grew from " + threads + " to " + Thread.activeCount());
    }

    private static long openFileDescriptors() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count();
        }
    }

    @Test
    void deactivationTakesBackEverythingItPublished() {
        ComponentFixture f = ComponentFixture.software();
        Transport transport = f.transport();
        assertEquals(3, f.bundle.live().size());
        f.close();
        assertEquals(List.of(), f.bundle.live());
        assertFalse(transport.isAvailable());
        f.close();
    }

    /**
     * A release that throws (here the framework's unregistration of the runtime service, in the middle of the
     * shutdown order) no longer stops the shutdown: the transport still closes (its poller thread stops, which
     * the @AfterEach checks), the library is unloaded, and the failure is what deactivate throws.
     */
    @Test
    void aThrowingReleaseStillReleasesTheRestAndIsReported() {
        ComponentFixture f = ComponentFixture.software();
        Transport transport = f.transport();
        RuntimeException failure = new IllegalArgumentException("a service listener failed");
        f.bundle.failNextUnregister(VerbsRuntime.class, failure);
        RuntimeException thrown = assertThrows(RuntimeException.class, f::close);
        assertSame(failure, thrown);
        assertEquals(List.of(), f.bundle.live());
        assertFalse(transport.isAvailable(), "the transport was closed after the failure");
    }

    /** The same for the first thing released, a port's Transport service: its VerbsDevice service goes too. */
    @Test
    void aThrowingUnpublicationStillReleasesTheRest() {
        ComponentFixture f = ComponentFixture.software();
        Transport transport = f.transport();
        RuntimeException failure = new UnsupportedOperationException("first");
        RuntimeException second = new IllegalArgumentException("second");
        f.bundle.failNextUnregister(Transport.class, failure);
        f.bundle.failNextUnregister(VerbsRuntime.class, second);
        RuntimeException thrown = assertThrows(RuntimeException.class, f::close);
        assertSame(failure, thrown);
        assertEquals(List.of(second), List.of(thrown.getSuppressed()));
        assertEquals(List.of(), f.bundle.live());
        assertFalse(transport.isAvailable());
    }

    @Test
    void aMissingLibraryIsAReasonNotAFailure() {
        try (ComponentFixture f = ComponentFixture.activate(Map.of("library_path", "/nonexistent/libibverbs.so.1"))) {
            String cause = f.runtime().unavailabilityCause().orElseThrow();
            assertTrue(cause.startsWith("cannot load /nonexistent/libibverbs.so.1"), cause);
            assertEquals(List.of(), f.devices());
        }
    }

    @Test
    void anUnknownDeviceNameIsReportedWithWhatIsThere() {
        try (ComponentFixture f = ComponentFixture.software(Map.of("device_name", "mlx5_0"))) {
            assertEquals("device.name mlx5_0 not found; libibverbs lists [softrc0]",
                    f.runtime().unavailabilityCause().orElseThrow());
            assertEquals(List.of(), f.devices());
            assertEquals(List.of(), f.transports());
        }
    }

    @Test
    void theConfiguredDeviceNameSelectsIt() {
        try (ComponentFixture f = ComponentFixture.software(Map.of("device_name", "softrc0"))) {
            assertEquals(1, f.devices().size());
        }
    }

    @Test
    void aPortTheDeviceLacksLeavesItOutWithTheReason() {
        try (ComponentFixture f = ComponentFixture.software(Map.of("port", 2))) {
            assertEquals(List.of("softrc0: port 2 does not exist (the device has 1)"), f.runtime().skippedDevices());
            assertFalse(f.runtime().isAvailable());
            assertEquals(List.of(), f.devices());
        }
    }

    @Test
    void gidSelection() {
        try (ComponentFixture f = ComponentFixture.software(Map.of("gid_prefix", "fe80:0000"))) {
            assertEquals(0, f.devices().getFirst().properties.get(VerbsDevice.PROPERTY_GID_INDEX));
        }
        try (ComponentFixture f = ComponentFixture.software(Map.of("gid_prefix", "0000:0000:0000:0000:0000:ffff:7f00"))) {
            assertEquals(2, f.devices().getFirst().properties.get(VerbsDevice.PROPERTY_GID_INDEX),
                    "the first ::ffff:127.x GID (RoCE v1 before v2, as on a RoCE port)");
        }
        try (ComponentFixture f = ComponentFixture.software(Map.of("gid_prefix", "0000:0000:0000:0000:0000:ffff:0a63"))) {
            String skipped = f.runtime().skippedDevices().getFirst();
            assertTrue(skipped.startsWith("softrc0: no GID starts with gid.prefix 00000000000000000000ffff0a63"), skipped);
        }
        try (ComponentFixture f = ComponentFixture.software(Map.of("gid_index", 31))) {
            String skipped = f.runtime().skippedDevices().getFirst();
            assertTrue(skipped.startsWith("softrc0: gid.index 31 is empty or beyond the GID table"), skipped);
        }
        try (ComponentFixture f = ComponentFixture.software(Map.of("gid_index", 40))) {
            String skipped = f.runtime().skippedDevices().getFirst();
            assertTrue(skipped.startsWith("softrc0: gid.index 40 is empty or beyond the GID table"), skipped);
        }
    }

    @Test
    void everyInvalidSettingIsRefusedByNameAndPublishesNothing() {
        assertRefused(Map.of("port", 0), "port must be 1..255, was 0");
        assertRefused(Map.of("port", 256), "port must be 1..255, was 256");
        assertRefused(Map.of("gid_index", -2), "gid.index must be -1 (automatic) or 0..255, was -2");
        assertRefused(Map.of("gid_prefix", "fe8g"), "gid.prefix must be at most 32 hex digits (colons allowed), was 'fe8g'");
        assertRefused(Map.of("gid_prefix", "fe80", "gid_index", 0), "gid.prefix and gid.index exclude each other");
        assertRefused(Map.of("poller_idle", "fast"), "poller.idle must be spin or backoff, was 'fast'");
        assertRefused(Map.of("poller_backoff_max_park_us", 0L), "poller.backoff.max.park.us must be 1..1000000, was 0");
        assertRefused(Map.of("library_path", "lib/libibverbs.so.1"),
                "library.path must be an absolute path or a bare file name, was 'lib/libibverbs.so.1'");
    }

    private static void assertRefused(Map<String, Object> config, String messageStart) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ComponentFixture.software(config));
        assertTrue(e.getMessage().startsWith(messageStart), e.getMessage());
    }

    @Test
    void theSpinStrategyIsAccepted() {
        try (ComponentFixture f = ComponentFixture.software(Map.of("poller_idle", "SPIN"))) {
            assertTrue(f.transport().isAvailable());
        }
    }
}
