package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;

import java.io.File;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Hashtable;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.SessionTerminalListener;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.TelemetryView;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.OptionUtils;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Hot swap inside Karaf with bytes moving: 64 MiB PUT sessions stream over the installed TCP transport (the
 * test is the client, on the same transport) while the transport's bundle is stopped, while the verbs
 * transport on the software device arrives with its higher ranking, and while a bad TCP configuration value
 * is offered.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class HotSwapIT extends ObjRdmaTestSupport {
    private static final String TCP = "(" + Transport.PROPERTY_NAME + "=tcp)";
    private static final String SOFT_VERBS = "(" + Transport.PROPERTY_NAME + "=verbs:softrc0)";
    private static final PrincipalId DAVE = PrincipalId.fromCanonical("hotswap-it:dave");
    private static final int COOKIE = 0x5a5a_0001;
    /** The object: 64 MiB, the staging pool's largest buffer by default. */
    private static final int SIZE = 64 << 20;
    /** The client writes in chunks, so the test can stop between them with half the object moved. */
    private static final int CHUNK = 4 << 20;

    @Configuration
    public Option[] config() throws Exception {
        List<Option> extra = new ArrayList<>();
        // the client endpoints are on loopback, which PREPARE's address policy refuses by default
        extra.add(editConfigurationFilePut("etc/org.objrdma.session.cfg", "allow.addresses", "127.0.0.0/8,::1"));
        String soft = System.getProperty("objrdma.softverbs");
        if (soft != null && new File(soft).isFile()) {
            extra.add(systemProperty("objrdma.softverbs").value(new File(soft).getCanonicalPath()));
        }
        return OptionUtils.combine(baseOptions(), extra.toArray(Option[]::new));
    }

    private final List<TerminalEvent> events = new CopyOnWriteArrayList<>();

    private long eventsFor(SessionId id) {
        return events.stream().filter(e -> e.sessionId().equals(id)).count();
    }

    private TerminalEvent eventFor(SessionId id) {
        return events.stream().filter(e -> e.sessionId().equals(id)).findFirst().orElseThrow();
    }

    /** One PUT in flight: the client's memory holding the object, its channel, and the pending READY. */
    private static final class Upload implements AutoCloseable {
        final Arena arena = Arena.ofShared();
        final MemorySegment memory = arena.allocate(SIZE, 4096);
        final MemoryRegion region;
        final Channel channel;
        PrepareResponse prepared;
        CompletableFuture<SessionResult<ReadyResponse>> ready;

        Upload(Transport tcp, long seed) throws Exception {
            // the object, written straight into the client's memory (no 64 MiB heap copy)
            Random random = new Random(seed);
            for (long i = 0; i < SIZE; i += Long.BYTES) {
                memory.set(ValueLayout.JAVA_LONG_UNALIGNED, i, random.nextLong());
            }
            region = tcp.register(memory, EnumSet.of(Access.LOCAL_WRITE));
            channel = tcp.openChannel(ChannelOptions.DEFAULT);
        }

        /** PREPARE, commit, READY (in the background) until the server has dialed this client's channel. */
        void start(SessionManager sessions, String target) throws Exception {
            EndpointInfo.Tcp mine = (EndpointInfo.Tcp) channel.localEndpoint();
            prepared = sessions.prepare(new PrepareRequest(DAVE, Op.PUT, target, 0, SIZE, 0x64, COOKIE,
                    new EndpointInfo.Tcp(mine.address(), 0, mine.key()), null)).orElseThrow();
            assertEquals(RcStatus.OK, sessions.finishPrepare(prepared.sessionId(), true));
            ready = CompletableFuture.supplyAsync(() -> sessions.readyTransfer(
                    new ReadyRequest(DAVE, prepared.sessionId(), COOKIE, channel.id(), null)));
            await("the server dialed the client of " + target, SERVICE_TIMEOUT,
                    () -> channel.state() == ChannelState.CONNECTED);
        }

        /** Plain RDMA WRITEs of the first half of the object into the staging region, in {@link #CHUNK}s. */
        List<WcStatus> writeFirstHalf() throws Exception {
            List<WorkRequest> writes = new ArrayList<>();
            for (int i = 0; i < SIZE / CHUNK / 2; i++) {
                writes.add(WorkRequest.write(i, new ScatterGatherEntry(region, (long) i * CHUNK, CHUNK),
                        prepared.stagingRegion().address() + (long) i * CHUNK, prepared.stagingRegion().rkey()));
            }
            return statuses(writes);
        }

        /**
         * The one WRITE_WITH_IMM the protocol completes a PUT with: the whole object (the server checks that
         * the completion carries the cookie and exactly the session's size).
         */
        List<WcStatus> writeAll() throws Exception {
            return statuses(List.of(WorkRequest.writeWithImm(100, new ScatterGatherEntry(region, 0, SIZE),
                    prepared.stagingRegion().address(), prepared.stagingRegion().rkey(), COOKIE)));
        }

        private List<WcStatus> statuses(List<WorkRequest> writes) throws Exception {
            BatchResult result = channel.submit(writes, Duration.ofSeconds(30)).get(40, TimeUnit.SECONDS);
            return result.completions().stream().map(c -> c.status()).toList();
        }

        @Override
        public void close() {
            // the transport may be gone (stopped bundle): its channel and region are closed already
            try {
                channel.close();
            } finally {
                try {
                    region.close();
                } finally {
                    arena.close();
                }
            }
        }
    }

    private ServiceRegistration<SessionTerminalListener> listen() {
        return bundleContext.registerService(SessionTerminalListener.class, events::add, new Hashtable<>());
    }

    @Test
    public void stoppingTheTcpBundleMidTransferEndsEverySessionOnceAndItsStartServesNewOnes() throws Exception {
        Transport tcp = waitForService(Transport.class, TCP);
        Bundle tcpBundle = bundleContext.getServiceReferences(Transport.class, TCP).iterator().next().getBundle();
        SessionManager sessions = waitForService(SessionManager.class, null);
        StagingPool pool = waitForService(StagingPool.class, null);
        ServiceRegistration<SessionTerminalListener> listener = listen();
        List<Upload> uploads = List.of(new Upload(tcp, 1), new Upload(tcp, 2));
        List<SessionId> ids = new ArrayList<>();
        try {
            for (int i = 0; i < uploads.size(); i++) {
                uploads.get(i).start(sessions, "/hotswap/stop-" + i);
                ids.add(uploads.get(i).prepared.sessionId());
            }
            // half of each object is in its staging buffer when the transport goes
            for (Upload u : uploads) {
                assertTrue(u.writeFirstHalf().stream().allMatch(s -> s == WcStatus.SUCCESS));
            }
            StagingStats during = pool.stats();
            assertTrue("two 64 MiB leases out: " + during, during.bytesBorrowed() >= 2L * SIZE);
            tcpBundle.stop();

            for (Upload u : uploads) {
                SessionResult<ReadyResponse> r;
                try {
                    r = u.ready.get(40, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new AssertionError("READY of " + u.prepared.sessionId() + " did not return within 40 s"
                            + " of the TCP bundle's stop\n" + ThreadDump.all(), e);
                }
                assertFalse("READY must not succeed without its transport: " + r,
                        r.isOk() && r.value().outcome() == ReadyOutcome.OK);
            }
            for (SessionId id : ids) {
                ThreadDump.await("the terminal event of " + id, Duration.ofSeconds(120), () -> eventsFor(id) >= 1);
                TerminalEvent e = eventFor(id);
                assertTrue(id + " ended by the loss of its wire: " + e, e.reason() == TerminalReason.TRANSPORT_LOST
                        || e.reason() == TerminalReason.SHUTDOWN || e.reason() == TerminalReason.FAILED);
            }
            // no transport, so no pool holding anything and no session manager
            await("the staging pool gone with its transport", SERVICE_TIMEOUT,
                    () -> bundleContext.getServiceReference(StagingPool.class) == null);
            assertEquals(null, bundleContext.getServiceReference(SessionManager.class));
        } finally {
            uploads.forEach(Upload::close);
            if (tcpBundle.getState() != Bundle.ACTIVE) {
                tcpBundle.start();
            }
        }
        try {
            Transport again = waitForService(Transport.class, TCP);
            StagingPool newPool = waitForService(StagingPool.class, null);
            StagingStats fresh = newPool.stats();
            assertEquals("nothing lent after the restart: " + fresh, 0, fresh.borrowed());
            SessionManager back = waitForService(SessionManager.class, null);
            TelemetryView telemetry = waitForService(TelemetryView.class, null);
            long readyOk = telemetry.value(Counter.SESSIONS_READY_OK);
            try (Upload u = new Upload(again, 3)) {
                u.start(back, "/hotswap/after-start");
                assertTrue(u.writeAll().stream().allMatch(s -> s == WcStatus.SUCCESS));
                assertEquals(ReadyOutcome.OK, u.ready.get(40, TimeUnit.SECONDS).orElseThrow().outcome());
                finishAndCompare(back, u);
            }
            await("SESSIONS_READY_OK moved by the new session", SERVICE_TIMEOUT,
                    () -> telemetry.value(Counter.SESSIONS_READY_OK) >= readyOk + 1);
            // and an owner's cancel is counted
            long cancelled = telemetry.value(Counter.SESSIONS_CANCELLED);
            PrepareResponse p = back.prepare(new PrepareRequest(DAVE, Op.GET, "/hotswap/cancelled", 0, 4096, 1,
                    COOKIE, new EndpointInfo.Tcp(new java.net.InetSocketAddress("127.0.0.1", 9), 0, new byte[16]),
                    null)).orElseThrow();
            assertEquals(RcStatus.OK, back.cancel(p.sessionId(), DAVE));
            await("SESSIONS_CANCELLED moved by the cancel", SERVICE_TIMEOUT,
                    () -> telemetry.value(Counter.SESSIONS_CANCELLED) >= cancelled + 1);
            for (SessionId id : ids) {
                assertEquals("exactly one terminal event for " + id, 1, eventsFor(id));
            }
            await("the lease of the new session back", SERVICE_TIMEOUT, () -> newPool.stats().borrowed() == 0);
        } finally {
            listener.unregister();
        }
    }

    private void finishAndCompare(SessionManager sessions, Upload u) throws Exception {
        SessionId id = u.prepared.sessionId();
        SessionBuffer view = sessions.getPutData(id).orElseThrow();
        assertEquals("the staged object differs from what the client wrote", -1,
                view.buffer().asSlice(0, SIZE).mismatch(u.memory));
        assertEquals(RcStatus.OK, sessions.finishPut(id, view.handle(), true, "\"h\"", ""));
        await("the session completed", SERVICE_TIMEOUT, () -> eventsFor(id) == 1);
        assertEquals(TerminalReason.COMPLETED, eventFor(id).reason());
    }

    @Test
    public void theSoftwareVerbsTransportArrivingMidTransferTakesOnlyNewSessions() throws Exception {
        String soft = System.getProperty("objrdma.softverbs");
        assumeTrue("the software verbs device (objrdma.softverbs, built by bundles/objrdma-verbs) is not built: " + soft,
                soft != null && new File(soft).isFile());
        Transport tcp = waitForService(Transport.class, TCP);
        SessionManager sessions = waitForService(SessionManager.class, null);
        ServiceRegistration<SessionTerminalListener> listener = listen();
        try (Upload u = new Upload(tcp, 4)) {
            u.start(sessions, "/hotswap/during-verbs");
            assertTrue(u.writeFirstHalf().stream().allMatch(s -> s == WcStatus.SUCCESS));
            setVerbsLibrary(soft);
            long deadline = System.nanoTime() + SERVICE_TIMEOUT.toNanos();
            while (bundleContext.getServiceReferences(Transport.class, SOFT_VERBS).isEmpty()
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            ServiceReference<Transport> verbs = bundleContext.getServiceReferences(Transport.class, SOFT_VERBS)
                    .stream().findFirst().orElse(null);
            assumeTrue("the software verbs device did not load in this container within " + SERVICE_TIMEOUT,
                    verbs != null);
            int tcpRanking = (Integer) bundleContext.getServiceReferences(Transport.class, TCP).iterator().next()
                    .getProperty(Constants.SERVICE_RANKING);
            assertTrue((Integer) verbs.getProperty(Constants.SERVICE_RANKING) > tcpRanking);

            // new sessions go to verbs (a queue pair endpoint), once the greedy references moved
            await("a new session on verbs", SERVICE_TIMEOUT, () -> {
                // a queue pair endpoint of the software device's port (never dialed: the session is cancelled)
                SessionResult<PrepareResponse> p = sessions.prepare(new PrepareRequest(DAVE, Op.GET, "/hotswap/new",
                        0, 4096, 1, COOKIE, new EndpointInfo.Verbs(0x123, 0x456,
                                new Gid(0xfe80000000000000L, 0x0002c90300abcdefL), 1, 1, Mtu.MTU_4096), null));
                if (!p.isOk()) {
                    return false;
                }
                sessions.cancel(p.value().sessionId(), DAVE);
                return p.value().serverEndpoint() instanceof EndpointInfo.Verbs;
            });
            // the running one finishes on TCP, every byte in place
            assertTrue(u.writeAll().stream().allMatch(s -> s == WcStatus.SUCCESS));
            assertEquals(ReadyOutcome.OK, u.ready.get(40, TimeUnit.SECONDS).orElseThrow().outcome());
            finishAndCompare(sessions, u);
        } finally {
            setVerbsLibrary(null);
            listener.unregister();
        }
        await("the software verbs transport gone", SERVICE_TIMEOUT,
                () -> {
                    try {
                        return bundleContext.getServiceReferences(Transport.class, SOFT_VERBS).isEmpty();
                    } catch (Exception e) {
                        return false;
                    }
                });
    }

    @Test
    public void aBadTcpValueIsRefusedNamingThePropertyAndTheTransportKeepsItsConfiguration() throws Exception {
        waitForService(Transport.class, TCP);
        ServiceReference<Transport> before = bundleContext.getServiceReferences(Transport.class, TCP).iterator().next();
        Object frameSize = before.getProperty("frame.size");
        ConfigurationAdmin ca = waitForService(ConfigurationAdmin.class, null);
        org.osgi.service.cm.Configuration c = ca.getConfiguration("org.objrdma.transport.tcp", "?");
        Hashtable<String, Object> previous = propertiesOf(c);
        try {
            Hashtable<String, Object> bad = new Hashtable<>(previous);
            bad.put("frame.size", "100");
            c.update(bad);
            await("the refusal naming frame.size in karaf.log", SERVICE_TIMEOUT,
                    () -> logHasLine("org.objrdma.transport.tcp refused", "frame.size"));
            ServiceReference<Transport> after = bundleContext.getServiceReferences(Transport.class, TCP).iterator()
                    .next();
            assertEquals("the same registration", before.getProperty(Constants.SERVICE_ID),
                    after.getProperty(Constants.SERVICE_ID));
            assertNotEquals("100", String.valueOf(after.getProperty("frame.size")));
            assertEquals(frameSize, after.getProperty("frame.size"));
        } finally {
            c.update(previous);
        }
    }

    private void setVerbsLibrary(String library) throws Exception {
        ConfigurationAdmin ca = waitForService(ConfigurationAdmin.class, null);
        org.osgi.service.cm.Configuration c = ca.getConfiguration("org.objrdma.verbs", "?");
        Hashtable<String, Object> p = propertiesOf(c);
        p.put("library.path", library == null ? "" : library);
        c.update(p);
    }

    /** A copy of what {@code c} holds now (empty if it has no properties yet). */
    private static Hashtable<String, Object> propertiesOf(org.osgi.service.cm.Configuration c) {
        Hashtable<String, Object> out = new Hashtable<>();
        java.util.Dictionary<String, Object> now = c.getProperties();
        if (now != null) {
            for (var keys = now.keys(); keys.hasMoreElements(); ) {
                String k = keys.nextElement();
                out.put(k, now.get(k));
            }
        }
        return out;
    }
}
