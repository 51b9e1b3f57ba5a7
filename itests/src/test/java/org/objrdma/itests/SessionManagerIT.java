package org.objrdma.itests;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Hashtable;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
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
import org.objrdma.api.session.SessionLimits;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.SessionTerminalListener;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.TelemetryView;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryGrant;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.testsupport.FakeTransport;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
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
 * The session manager inside Karaf: served with its documented limits, GET and PUT end to end through the
 * installed TCP transport and staging pool (the test plays the client on the same transport), terminal
 * events reach whiteboard listeners exactly once, counters reach telemetry, a transport that goes away
 * ends its sessions with a wire failure, a bad configuration change is refused naming the property, and a
 * valid one restarts the session core.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class SessionManagerIT extends ObjRdmaTestSupport {

    private static final String PID = "org.objrdma.session";
    private static final String TCP = "(" + Transport.PROPERTY_NAME + "=tcp)";
    private static final PrincipalId ALICE = PrincipalId.fromCanonical("session-it:alice");
    private static final int COOKIE = 0x1dea_cafe;
    private static final int SIZE = 256 * 1024;
    /** A client endpoint for sessions that never reach READY (a PREPARE without one is refused with ARG). */
    private static final EndpointInfo NEVER_DIALED = new EndpointInfo.Tcp(
            new java.net.InetSocketAddress("127.0.0.1", 9), 0, new byte[16]);

    /** The client endpoints of these tests are on loopback, which PREPARE's address policy refuses by default. */
    private static final String LOOPBACK = "127.0.0.0/8,::1";

    @Configuration
    public Option[] config() {
        return org.ops4j.pax.exam.OptionUtils.combine(baseOptions(), testSupportBundle(),
                org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut(
                        "etc/" + PID + ".cfg", "allow.addresses", LOOPBACK));
    }

    /** Whiteboard listener registered by the test: every terminal event it is told about. */
    private final List<TerminalEvent> events = new CopyOnWriteArrayList<>();

    private ServiceRegistration<SessionTerminalListener> listen() {
        return bundleContext.registerService(SessionTerminalListener.class, events::add, new Hashtable<>());
    }

    private long eventsFor(SessionId id) {
        return events.stream().filter(e -> e.sessionId().equals(id)).count();
    }

    private TerminalEvent onlyEventFor(SessionId id) throws InterruptedException {
        await("terminal event for " + id, SERVICE_TIMEOUT, () -> eventsFor(id) >= 1);
        Thread.sleep(100); // a second notification would arrive right behind the first
        assertEquals("exactly one terminal event for " + id, 1, eventsFor(id));
        return events.stream().filter(e -> e.sessionId().equals(id)).findFirst().orElseThrow();
    }

    @Test
    public void servedWithTheDocumentedDefaults() {
        SessionManager sessions = waitForService(SessionManager.class, null);
        SessionLimits limits = sessions.limits();
        assertEquals(1024, limits.maxSessions());
        assertEquals(256, limits.maxUserSessions());
        assertEquals(Duration.ofSeconds(30), limits.prepTimeout());
        assertEquals(Duration.ofMinutes(1), limits.leaseTimeout());
        assertEquals(64, limits.maxReadySlots());
        assertEquals(RcStatus.OK, sessions.tryAcquireStageSlot());
        sessions.releaseStageSlot();
    }

    /** The client half, on the installed TCP transport: registered memory and one channel. */
    private static final class Client implements AutoCloseable {
        final Arena arena = Arena.ofShared();
        final MemorySegment memory = arena.allocate(SIZE, 4096);
        final MemoryRegion region;
        final Channel channel;
        /** What a GET's server may write: all of the memory, through this client's channel only. */
        final MemoryGrant grant;

        Client(Transport tcp) throws Exception {
            region = tcp.register(memory, EnumSet.of(Access.LOCAL_WRITE)); // local-only: peers get the grant
            channel = tcp.openChannel(ChannelOptions.DEFAULT);
            grant = channel.grant(region, 0, SIZE, EnumSet.of(Access.REMOTE_WRITE));
        }

        EndpointInfo preparedEndpoint() {
            EndpointInfo.Tcp mine = (EndpointInfo.Tcp) channel.localEndpoint();
            return new EndpointInfo.Tcp(mine.address(), 0, mine.key());
        }

        @Override
        public void close() {
            channel.close();
            region.close();
            arena.close();
        }
    }

    @Test
    public void getAndPutEndToEndThroughTheInstalledTransport() throws Exception {
        Transport tcp = waitForService(Transport.class, TCP);
        SessionManager sessions = waitForService(SessionManager.class, null);
        TelemetryView telemetry = waitForService(TelemetryView.class, null);
        long preparedBefore = telemetry.value(Counter.SESSIONS_PREPARED);
        ServiceRegistration<SessionTerminalListener> listener = listen();
        try (Client client = new Client(tcp)) {
            // GET: the server WRITE_WITH_IMMs the staged object into the client's memory
            byte[] object = new byte[SIZE];
            new java.util.Random(7).nextBytes(object);
            PrepareResponse get = sessions.prepare(new PrepareRequest(ALICE, Op.GET, "/it/get", 0, SIZE, 0x77, COOKIE,
                    client.preparedEndpoint(), client.grant.asRemote())).orElseThrow();
            SessionBuffer lease = sessions.borrowStaging(get.sessionId()).orElseThrow();
            MemorySegment.copy(MemorySegment.ofArray(object), 0, lease.buffer(), 0, SIZE);
            assertEquals(RcStatus.OK, sessions.finishStaging(get.sessionId(), lease.handle(), true, SIZE, "\"g\"", ""));
            assertEquals(RcStatus.OK, sessions.finishPrepare(get.sessionId(), true));
            CompletableFuture<BatchResult> arrival = client.channel.submit(List.of(WorkRequest.recv(1)),
                    Duration.ofSeconds(20));
            ReadyResponse r = sessions.readyTransfer(new ReadyRequest(ALICE, get.sessionId(), COOKIE,
                    client.channel.id(), null)).orElseThrow();
            assertEquals(ReadyOutcome.OK, r.outcome());
            Completion c = arrival.get(20, TimeUnit.SECONDS).completions().get(0);
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, c.opcode());
            assertEquals(COOKIE, c.immediate());
            assertEquals(SIZE, c.byteLength());
            assertArrayEquals(object, client.memory.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(RcStatus.OK, sessions.finishFinal(get.sessionId()));
            assertEquals(TerminalReason.COMPLETED, onlyEventFor(get.sessionId()).reason());
        }
        try (Client client = new Client(tcp)) {
            // PUT: the client WRITE_WITH_IMMs into the staging region PREPARE named
            byte[] object = new byte[SIZE];
            new java.util.Random(8).nextBytes(object);
            MemorySegment.copy(MemorySegment.ofArray(object), 0, client.memory, 0, SIZE);
            PrepareResponse put = sessions.prepare(new PrepareRequest(ALICE, Op.PUT, "/it/put", 0, SIZE, 0x78, COOKIE,
                    client.preparedEndpoint(), null)).orElseThrow();
            assertEquals(RcStatus.OK, sessions.finishPrepare(put.sessionId(), true));
            CompletableFuture<SessionResult<ReadyResponse>> ready = CompletableFuture.supplyAsync(() ->
                    sessions.readyTransfer(new ReadyRequest(ALICE, put.sessionId(), COOKIE, client.channel.id(), null)));
            // the server posts its receive, then dials the client's channel
            await("server connected to the client", SERVICE_TIMEOUT, () -> client.channel.state() == ChannelState.CONNECTED);
            WorkRequest write = WorkRequest.writeWithImm(2, new ScatterGatherEntry(client.region, 0, SIZE),
                    put.stagingRegion().address(), put.stagingRegion().rkey(), COOKIE);
            Completion w = client.channel.submit(List.of(write), Duration.ofSeconds(20)).get(20, TimeUnit.SECONDS)
                    .completions().get(0);
            assertEquals(WcStatus.SUCCESS, w.status());
            assertEquals(ReadyOutcome.OK, ready.get(20, TimeUnit.SECONDS).orElseThrow().outcome());
            SessionBuffer view = sessions.getPutData(put.sessionId()).orElseThrow();
            assertArrayEquals(object, view.buffer().toArray(ValueLayout.JAVA_BYTE));
            assertEquals(RcStatus.OK, sessions.finishPut(put.sessionId(), view.handle(), true, "\"p\"", ""));
            assertEquals(TerminalReason.COMPLETED, onlyEventFor(put.sessionId()).reason());
        } finally {
            listener.unregister();
        }
        assertTrue(telemetry.value(Counter.SESSIONS_PREPARED) >= preparedBefore + 2);
        assertTrue(telemetry.value(Counter.SESSIONS_ENDED) >= 2);
    }

    @Test
    public void aTransportThatGoesAwayEndsItsSessionsWithAWireFailure() throws Exception {
        waitForService(Transport.class, TCP);
        waitForService(SessionManager.class, null);
        ServiceRegistration<SessionTerminalListener> listener = listen();
        // channels that connect to anything and move nothing: the sessions never reach READY here
        FakeTransport better = FakeTransport.builder("itest-session").channels(FakeTransport.ChannelMode.INERT)
                .checkArguments(false).build();
        ServiceRegistration<Transport> reg = TransportRegistrations.register(bundleContext, better, 1000);
        List<SessionId> onBetter = new ArrayList<>();
        try {
            SessionManager sessions = waitForService(SessionManager.class, null);
            // the greedy references (session manager and staging pool) move to the better-ranked transport
            long deadline = System.nanoTime() + SERVICE_TIMEOUT.toNanos();
            while (onBetter.size() < 2 && System.nanoTime() < deadline) {
                SessionResult<PrepareResponse> p = sessions.prepare(new PrepareRequest(ALICE, Op.PUT, "/it/swap", 0, 4096,
                        1, COOKIE, NEVER_DIALED, null));
                if (p.isOk() && onFake(p.value().serverEndpoint())) {
                    onBetter.add(p.value().sessionId());
                } else if (p.isOk()) {
                    sessions.cancel(p.value().sessionId(), ALICE); // still on TCP: the swap is under way
                } else {
                    Thread.sleep(50);
                }
            }
            assertEquals("two sessions on the better transport", 2, onBetter.size());
            assertEquals(RcStatus.OK, sessions.finishPrepare(onBetter.get(0), true));
        } finally {
            reg.unregister();
        }
        try {
            for (SessionId id : onBetter) {
                TerminalEvent e = onlyEventFor(id);
                assertEquals(TerminalReason.TRANSPORT_LOST, e.reason());
                assertEquals(Optional.of(ReadyOutcome.WIRE_FAIL), e.lastOutcome());
            }
            assertEquals("every channel the sessions opened was closed", better.opened.get(),
                    better.closed.get());
            // and new sessions go back to TCP
            SessionManager sessions = waitForService(SessionManager.class, null);
            await("a session on TCP again", SERVICE_TIMEOUT, () -> {
                SessionResult<PrepareResponse> p = sessions.prepare(new PrepareRequest(ALICE, Op.GET, "/it/after", 0,
                        4096, 1, COOKIE, NEVER_DIALED, null));
                if (!p.isOk()) {
                    return false;
                }
                sessions.cancel(p.value().sessionId(), ALICE);
                return !onFake(p.value().serverEndpoint());
            });
        } finally {
            listener.unregister();
        }
    }

    @Test
    public void aBadAllowListIsRefusedNamingThePropertyAndTheManagerKeepsItsSettings() throws Exception {
        SessionManager sessions = waitForService(SessionManager.class, null);
        ServiceReference<SessionManager> before = bundleContext.getServiceReference(SessionManager.class);
        try {
            Hashtable<String, Object> bad = new Hashtable<>();
            bad.put("allow.addresses", "127.0.0.0/8,localhost");
            withConfigAdmin(ca -> ca.getConfiguration(PID, "?").update(bad));
            await("the refusal naming allow.addresses in karaf.log", SERVICE_TIMEOUT,
                    () -> logHasLine("org.objrdma.session refused", "allow.addresses", "localhost"));
            assertEquals("the same registration", before.getProperty(Constants.SERVICE_ID),
                    bundleContext.getServiceReference(SessionManager.class).getProperty(Constants.SERVICE_ID));
            // the running allow list still admits loopback client endpoints
            SessionResult<PrepareResponse> p = sessions.prepare(new PrepareRequest(ALICE, Op.GET, "/it/refused", 0,
                    4096, 1, COOKIE, NEVER_DIALED, null));
            assertTrue(String.valueOf(p.status()), p.isOk());
            sessions.cancel(p.value().sessionId(), ALICE);
        } finally {
            Hashtable<String, Object> good = new Hashtable<>();
            good.put("allow.addresses", LOOPBACK);
            withConfigAdmin(ca -> ca.getConfiguration(PID, "?").update(good));
        }
        waitForService(SessionManager.class, null);
    }

    @Test
    public void aBadLimitIsRefusedNamingThePropertyAndAValidOneRestartsTheCore() throws Exception {
        SessionManager sessions = waitForService(SessionManager.class, null);
        try {
            Hashtable<String, Object> bad = new Hashtable<>();
            bad.put("allow.addresses", LOOPBACK);
            bad.put("max.sessions", 10L);
            bad.put("max.user.sessions", 11L);
            withConfigAdmin(ca -> ca.getConfiguration(PID, "?").update(bad));
            await("the refusal naming max.user.sessions in karaf.log", SERVICE_TIMEOUT,
                    () -> logHasLine("org.objrdma.session refused", "max.user.sessions"));
            assertEquals(1024, sessions.limits().maxSessions());

            Hashtable<String, Object> smaller = new Hashtable<>();
            smaller.put("allow.addresses", LOOPBACK);
            smaller.put("max.sessions", 512L);
            withConfigAdmin(ca -> ca.getConfiguration(PID, "?").update(smaller));
            // the same service, a new core with the new limits
            await("the session manager restarted with max.sessions 512", SERVICE_TIMEOUT,
                    () -> sessions.limits().maxSessions() == 512);
            assertTrue(logHasLine("org.objrdma.session changed", "restarts its core to apply it"));
        } finally {
            Hashtable<String, Object> good = new Hashtable<>();
            good.put("allow.addresses", LOOPBACK);
            withConfigAdmin(ca -> ca.getConfiguration(PID, "?").update(good));
        }
        await("the component is active again with the defaults", SERVICE_TIMEOUT, () -> {
            try {
                return waitForService(SessionManager.class, null).limits().maxSessions() == 1024;
            } catch (RuntimeException | AssertionError restarting) {
                return false;
            }
        });
    }

    /** Whether a session's server endpoint is one of an inert fake channel's (127.0.0.1:1), not the real TCP transport's. */
    private static boolean onFake(EndpointInfo endpoint) {
        return endpoint instanceof EndpointInfo.Tcp t && t.address().equals(new InetSocketAddress("127.0.0.1", 1));
    }
}
