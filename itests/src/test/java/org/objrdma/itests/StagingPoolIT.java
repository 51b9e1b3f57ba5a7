package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Hashtable;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.staging.StagingStatus;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.TelemetryView;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.MemoryGrant;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.testsupport.FakeRegion;
import org.objrdma.testsupport.FakeTransport;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.api.transport.WorkRequest;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The staging pool inside Karaf, against the real TCP transport when the distribution has it (it does once
 * objrdma-transport-tcp is in the umbrella feature; otherwise the test registers a recording transport of its
 * own and says so): buffers are page aligned and registered with the bound transport, a peer can WRITE into a
 * lease over that transport, counters reach the telemetry service, a better-ranked transport is swapped in
 * and each of its registrations is released exactly once, and a configuration change takes effect (live, or
 * by a rebuild behind the same service) while a bad value is refused naming the property.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class StagingPoolIT extends ObjRdmaTestSupport {

    private static final String PID = "org.objrdma.staging";
    private static final String TCP = "(" + Transport.PROPERTY_NAME + "=tcp)";
    private static final PrincipalId PRINCIPAL = PrincipalId.fromCanonical("staging-it");

    @Configuration
    public Option[] config() {
        return org.ops4j.pax.exam.OptionUtils.combine(baseOptions(), testSupportBundle());
    }

    /** Registered once per Karaf instance when the distribution has no TCP transport. */
    private static FakeTransport fallback;

    /** The real TCP transport, or a recording one registered by this test when the distribution has none. */
    private Transport baseTransport() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            var refs = bundleContext.getServiceReferences(Transport.class, TCP);
            if (!refs.isEmpty()) {
                System.out.println("StagingPoolIT: running against the real TCP transport");
                return bundleContext.getService(refs.iterator().next());
            }
            if (System.nanoTime() > deadline) {
                break;
            }
            Thread.sleep(50);
        }
        synchronized (StagingPoolIT.class) {
            if (fallback == null) {
                System.out.println("StagingPoolIT: no TCP transport in the distribution; using a recording transport");
                fallback = recording("itest-base");
                TransportRegistrations.register(bundleContext, fallback, 0);
            }
            return fallback;
        }
    }

    @Test
    public void lendsPageAlignedBuffersRegisteredWithTheTransportAndAPeerCanWriteIntoThem() throws Exception {
        Transport transport = baseTransport();
        StagingPool pool = waitForService(StagingPool.class, null);
        TelemetryView telemetry = waitForService(TelemetryView.class, null);
        long borrowsBefore = telemetry.value(Counter.STAGING_BORROWS);
        int size = 64 * 1024;
        StagingLease lease = pool.borrow(size - 1000, PRINCIPAL, "it-session-1");
        try {
            assertEquals(0, lease.segment().address() % 4096);
            assertEquals(size, lease.region().length());
            assertEquals(transport.name(), lease.region().transportName());
            assertTrue(lease.region().isOpen());
            assertEquals("local-only: no peer reaches a staging buffer by its registration",
                    EnumSet.of(Access.LOCAL_WRITE), lease.region().access());
            if (transport.level() == TransportLevel.TCP && "tcp".equals(transport.name())) {
                peerWritesInto(transport, lease);
            }
            StagingStats stats = pool.stats();
            assertTrue(stats.borrowed() >= 1);
            assertTrue(stats.bytesBorrowed() >= size);
        } finally {
            assertTrue(lease.release());
        }
        assertFalse("a second release is refused", lease.release());
        assertEquals(borrowsBefore + 1, telemetry.value(Counter.STAGING_BORROWS));
        assertTrue(telemetry.value(Counter.STAGING_DOUBLE_RETURNS) >= 1);
        StagingException tooBig = null;
        try {
            pool.borrow(pool.maxBufferSize() + 1, PRINCIPAL, "too-big");
        } catch (StagingException e) {
            tooBig = e;
        }
        assertNotNull(tooBig);
        assertEquals(StagingStatus.INVALID_SIZE, tooBig.status());
    }

    /**
     * A client with its own memory WRITEs 64 KiB over TCP channels into the lease, as a hipobj PUT does: with the
     * region's own key it is refused (the registration is local-only), through a grant of the lease's slice on the
     * server's channel it lands.
     */
    private void peerWritesInto(Transport tcp, StagingLease lease) throws Exception {
        int length = Math.toIntExact(lease.size());
        try (Arena arena = Arena.ofShared()) {
            MemorySegment clientMemory = arena.allocate(length, 4096);
            for (int i = 0; i < length; i++) {
                clientMemory.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 13 + 1));
            }
            MemoryRegion client = tcp.register(clientMemory, EnumSet.of(Access.LOCAL_WRITE));
            Channel clientSide = tcp.openChannel(ChannelOptions.DEFAULT);
            Channel serverSide = tcp.openChannel(ChannelOptions.DEFAULT);
            try {
                CompletableFuture<Void> other = CompletableFuture.runAsync(() -> {
                    try {
                        serverSide.connect(clientSide.localEndpoint());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                clientSide.connect(serverSide.localEndpoint());
                other.get(30, TimeUnit.SECONDS);
                BatchResult refused = clientSide.submit(List.of(WorkRequest.write(1, ScatterGatherEntry.of(client),
                        lease.region().address(), lease.region().rkey())), Duration.ofSeconds(30))
                        .get(60, TimeUnit.SECONDS);
                assertEquals(WcStatus.REM_ACCESS_ERR, refused.completions().get(0).status());
                assertEquals("nothing landed", -1, lease.segment().mismatch(MemorySegment.ofArray(new byte[length])));
                clientSide.reset();
                serverSide.reset();
                MemoryGrant grant = serverSide.grant(lease.region(), lease.segment().address() - lease.region().address(),
                        length, EnumSet.of(Access.REMOTE_WRITE));
                CompletableFuture<Void> again = CompletableFuture.runAsync(() -> {
                    try {
                        serverSide.connect(clientSide.localEndpoint());
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                clientSide.connect(serverSide.localEndpoint());
                again.get(30, TimeUnit.SECONDS);
                BatchResult r = clientSide.submit(List.of(WorkRequest.write(2, ScatterGatherEntry.of(client),
                        grant.address(), grant.rkey())), Duration.ofSeconds(30))
                        .get(60, TimeUnit.SECONDS);
                grant.revoke();
                assertTrue("write into the staging lease failed: " + r, r.isSuccess());
                assertEquals(length, r.bytesTransferred());
                assertEquals("the lease holds what the peer wrote", -1, lease.segment().mismatch(clientMemory));
            } finally {
                clientSide.close();
                serverSide.close();
                client.close();
            }
        }
    }

    @Test
    public void aBetterRankedTransportIsSwappedInAndEachOfItsRegistrationsIsReleasedOnce() throws Exception {
        Transport base = baseTransport();
        StagingPool pool = waitForService(StagingPool.class, null);
        StagingLease onBase = pool.borrow(4096, PRINCIPAL, "before-swap");
        assertEquals(base.name(), onBase.region().transportName());

        FakeTransport better = recording("itest-swap");
        ServiceRegistration<Transport> registration = TransportRegistrations.register(bundleContext, better, 1000);
        StagingLease onBetter = null;
        try {
            await("new borrows register with the better-ranked transport", SERVICE_TIMEOUT, () -> {
                try (StagingLease probe = pool.borrow(4096, PRINCIPAL, "probe")) {
                    return "itest-swap".equals(probe.region().transportName());
                } catch (StagingException e) {
                    throw new AssertionError(e);
                }
            });
            assertTrue("a lease on the old transport keeps its registration", onBase.region().isOpen());
            onBase.release();
            assertTrue("the base transport is still there: its buffer stays registered for reuse",
                    onBase.region().isOpen());
            onBetter = pool.borrow(8192, PRINCIPAL, "after-swap");
            assertEquals("itest-swap", onBetter.region().transportName());
        } finally {
            registration.unregister();
        }
        await("borrows fall back to " + base.name(), SERVICE_TIMEOUT, () -> {
            try (StagingLease probe = pool.borrow(4096, PRINCIPAL, "probe-back")) {
                return base.name().equals(probe.region().transportName());
            } catch (StagingException e) {
                throw new AssertionError(e);
            }
        });
        assertTrue("a lease out on the departed transport is untouched", onBetter.region().isOpen());
        onBetter.release();
        assertTrue("itest-swap registered buffers", better.registered() >= 2);
        for (FakeRegion r : better.regions()) {
            assertEquals("each registration released exactly once", 1, r.closeCalls());
        }
    }

    /**
     * Config Admin changes reach the running pool through {@code @Modified}: a limit applies live (same pool,
     * same service), new size classes rebuild the pool behind the same service while a lease of the old one
     * keeps working, and a bad value is refused naming the property with everything as it was.
     */
    @Test
    public void aConfigurationChangeTakesEffectAndTheServiceStays() throws Exception {
        baseTransport();
        StagingPool pool = waitForService(StagingPool.class, null);
        Object serviceId = bundleContext.getServiceReference(StagingPool.class).getProperty(Constants.SERVICE_ID);
        try {
            // live: one buffer per principal and class, no waiting
            Hashtable<String, Object> limits = new Hashtable<>();
            limits.put("max.buffers.per.principal.per.class", 1);
            limits.put("borrow.wait", 0L);
            withConfigAdmin(ca -> ca.getConfiguration(PID, "?").update(limits));
            await("the live change logged", SERVICE_TIMEOUT, () -> logHasLine("Staging pool reconfigured live",
                    "max.buffers.per.principal.per.class 64 -> 1"));
            StagingLease first = pool.borrow(4096, PRINCIPAL, "first");
            StagingException limit = assertThrowsStaging(() -> pool.borrow(4096, PRINCIPAL, "second"));
            assertEquals(StagingStatus.LIMIT, limit.status());
            assertTrue(limit.getMessage(), limit.getMessage().contains("max.buffers.per.principal.per.class (1"));
            assertEquals(serviceId, currentServiceId());

            // rebuild: new size classes; the lease of the old pool goes on working and returns to it
            Hashtable<String, Object> classes = new Hashtable<>(limits);
            classes.put("max.buffer.size", 1L << 20);
            classes.put("max.bytes.per.principal", 1L << 20);
            withConfigAdmin(ca -> ca.getConfiguration(PID, "?").update(classes));
            await("the pool rebuilt with 1 MiB classes", SERVICE_TIMEOUT, () -> pool.maxBufferSize() == 1L << 20);
            await("the rebuild logged", SERVICE_TIMEOUT, () -> logHasLine("Staging pool rebuilt behind the same service",
                    "max.buffer.size 67108864 -> 1048576"));
            assertTrue(first.isActive());
            first.segment().fill((byte) 1);
            try (StagingLease onNew = pool.borrow(1L << 20, PRINCIPAL, "on the new pool")) {
                assertEquals(1L << 20, onNew.region().length());
            }
            assertTrue(first.release());
            await("the previous pool closed with its last lease", SERVICE_TIMEOUT,
                    () -> logHasLine("Previous staging pool", "closed: its last lease came back"));
            assertEquals(serviceId, currentServiceId());

            // refused: the property is named, the running pool keeps its settings
            Hashtable<String, Object> bad = new Hashtable<>(classes);
            bad.put("max.buffer.size", 3000L);
            withConfigAdmin(ca -> ca.getConfiguration(PID, "?").update(bad));
            await("the refusal logged", SERVICE_TIMEOUT, () -> logHasLine(
                    "Configuration of org.objrdma.staging refused", "max.buffer.size = 3000"));
            assertEquals(1L << 20, pool.maxBufferSize());
            assertEquals(serviceId, currentServiceId());
            try (StagingLease stillLends = pool.borrow(1L << 20, PRINCIPAL, "after the refusal")) {
                assertEquals(0, stillLends.segment().address() % 4096);
            }
        } finally {
            withConfigAdmin(ca -> ca.getConfiguration(PID, "?").delete());
        }
        await("the defaults back", SERVICE_TIMEOUT, () -> pool.maxBufferSize() == 64L << 20);
        assertEquals(serviceId, currentServiceId());
        try (StagingLease l = pool.borrow(100, PRINCIPAL, "after-defaults")) {
            assertEquals(0, l.segment().address() % 4096);
        }
    }

    private Object currentServiceId() {
        return bundleContext.getServiceReference(StagingPool.class).getProperty(Constants.SERVICE_ID);
    }

    interface StagingCall {
        StagingLease run() throws StagingException;
    }

    private static StagingException assertThrowsStaging(StagingCall call) {
        try {
            StagingLease unexpected = call.run();
            unexpected.release();
            throw new AssertionError("the borrow was not refused");
        } catch (StagingException e) {
            return e;
        }
    }

    /** A transport that records registrations (each one's close calls counted) and has no channels. */
    private static FakeTransport recording(String name) {
        return FakeTransport.builder(name).channels(FakeTransport.ChannelMode.NONE).checkArguments(false).build();
    }
}
