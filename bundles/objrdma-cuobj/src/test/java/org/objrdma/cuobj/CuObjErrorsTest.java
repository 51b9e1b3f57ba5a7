package org.objrdma.cuobj;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.wire.Errno.EACCES;
import static org.objrdma.wire.Errno.EAFNOSUPPORT;
import static org.objrdma.wire.Errno.EINVAL;
import static org.objrdma.wire.Errno.EIO;
import static org.objrdma.wire.Errno.ENODEV;
import static org.objrdma.wire.Errno.ENOMEM;
import static org.objrdma.cuobj.CuObj.CUOBJ_LOG_PATH_ERROR;
import static org.objrdma.cuobj.CuObj.CUOBJ_PROTO_RDMA_DC_V1;
import static org.objrdma.cuobj.CuObj.INVALID_CHANNEL_ID;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.testsupport.FakeTransport;
import org.objrdma.wire.AgentKeys;
import org.objrdma.wire.DialPacing;
import org.objrdma.wire.CuObjDescriptor;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * Every documented return value provoked, in the documented order, with the TCP transport for real: -ENODEV,
 * -EIO for each validation reason (the telemetry line names which check refused, proving the order), -EAFNOSUPPORT,
 * -ENOMEM, -EIO with a completion status, the poll errors, and the null returns of registration.
 */
class CuObjErrorsTest {
    private static final int SIZE = 1 << 20;

    private byte[] key;
    private TcpTransport serverTransport;
    private InProcessClient client;
    private final StringBuilder telemetry = new StringBuilder();
    private final List<CuObjServer> servers = new ArrayList<>();
    private Arena arena;

    @BeforeEach
    void start() throws Exception {
        key = AgentKeys.generate();
        serverTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        client = new InProcessClient(key, 8L * SIZE, 2);
        arena = Arena.ofShared();
        CuObjServer.setupTelemetry(false, telemetry);
        CuObjServer.setTelemFlags(CUOBJ_LOG_PATH_ERROR);
    }

    @AfterEach
    void stop() {
        CuObjServer.shutdownTelemetry();
        servers.forEach(CuObjServer::close);
        client.close();
        serverTransport.close();
        arena.close();
    }

    private CuObjServer server(Transport t, CuObjRDMATunable tunable) {
        CuObjServer s = new CuObjServer(t, "127.0.0.1", 0, CUOBJ_PROTO_RDMA_DC_V1, tunable);
        servers.add(s);
        return s;
    }

    private CuObjRDMATunable keyed() {
        CuObjRDMATunable t = new CuObjRDMATunable();
        t.setAgentKey(key);
        t.setAllowAddresses(Patterns.LOOPBACK); // the client agents listen on loopback
        return t;
    }

    private CuObjServer server() {
        return server(serverTransport, keyed());
    }

    /** The reason of the last ERROR line. */
    private String lastError() {
        String[] lines = telemetry.toString().split(System.lineSeparator());
        return lines[lines.length - 1];
    }

    private void assertRefused(long result, int errno, String reason) {
        assertEquals(-errno, result, lastError());
        assertTrue(lastError().contains(reason), "expected '" + reason + "' in: " + lastError());
    }

    // ------------------------------------------------------------------ -ENODEV

    @Test
    void enodevComesFirstWhateverElseIsWrong() throws Exception {
        CuObjRDMATunable badTunable = new CuObjRDMATunable();
        badTunable.setNumDcis(0);
        CuObjServer noSession = server(serverTransport, badTunable);
        assertFalse(noSession.isConnected(), "invalid tunables: the session does not start");
        assertEquals(-1, noSession.startRDMASession());
        int[] status = {-1};
        assertRefused(noSession.handleGetObject("k", null, 0, 0, "junk", 9, -1, status), ENODEV, "no session");
        assertEquals(-1, status[0], "status is not populated before submission");
        assertEquals(-ENODEV, noSession.poll(new CuObjAsyncEvent[1], 1, 0));
        assertEquals(INVALID_CHANNEL_ID, noSession.allocateChannelId());
        assertNull(noSession.registerBuffer(arena.allocate(4096, 4096), 4096));

        CuObjServer noTransport = server(null, keyed());
        assertFalse(noTransport.isConnected());
        assertRefused(noTransport.handlePutObject("k", null, 0, 0, "junk"), ENODEV, "no transport bound");

        TcpTransport doomed = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        CuObjServer onDoomed = server(doomed, keyed());
        int ch = onDoomed.allocateChannelId();
        RdmaBuffer buf = onDoomed.registerBuffer(arena.allocate(4096, 4096), 4096);
        assertTrue(onDoomed.isConnected());
        doomed.close();
        assertFalse(onDoomed.isConnected());
        assertRefused(onDoomed.handleGetObject("k", buf, client.addr(0), 4096, client.get(0, 4096), ch), ENODEV,
                "the TCP transport was shut down");
        assertEquals(-ENODEV, onDoomed.poll(new CuObjAsyncEvent[1], 1, ch));

        CuObjServer closed = server();
        closed.close();
        closed.close();
        assertFalse(closed.isConnected());
        assertEquals(-1, closed.startRDMASession());
        assertRefused(closed.handleGetObject("k", null, 0, 0, ""), ENODEV, "no session");
    }

    // ------------------------------------------------------------------ -EIO, in order

    @Test
    void eioReasonsAreCheckedInTheDocumentedOrder() throws Exception {
        CuObjRDMATunable t = keyed();
        t.setMaxSge(2);
        CuObjServer s = server(serverTransport, t);
        int ch = s.allocateChannelId();
        RdmaBuffer buf = s.registerBuffer(arena.allocate(SIZE, 4096), SIZE);
        String desc = client.get(0, SIZE);
        long addr = client.addr(0);
        int[] status = {-1};

        // each call also breaks every later rule: the refusal named is the first one in the order
        assertRefused(s.handleGetObject("a", null, 0, 0, "bad", 7, -1, status), EIO, "no registered buffer");
        assertRefused(s.handleGetObject("b", buf, 0, 0, "bad", 7, -1, status), EIO, "remote_buf_start is 0");
        assertRefused(s.handleGetObject("c", buf, addr, 0, "bad", 7, -1, status), EIO, "size is 0");
        assertRefused(s.handleGetObject("c2", buf, addr, -5, "bad", 7, -1, status), EIO, "size is -5");
        assertRefused(s.handleGetObject("d", buf, addr, (1L << 30) + 1, "bad", 7, -1, status), EIO, "exceeds 1 GiB");
        assertRefused(s.handleGetObject("e", buf, addr, 4096, "bad", 7, -1, status), EIO, "channel 7 is not allocated");
        assertRefused(s.handleGetObject("e2", buf, addr, 4096, "bad", INVALID_CHANNEL_ID), EIO, "channel 65535");
        assertRefused(s.handleGetObject("e3", buf, addr, 4096, "bad", -1), EIO, "channel -1");
        assertRefused(s.handleGetObject("f", buf, addr - 1, 4096, "bad", ch, -1, status), EIO,
                "descriptor refused: WRONG_LENGTH");
        assertRefused(s.handleGetObject("f2", buf, addr, 4096, desc.replace(':', ';'), ch), EIO,
                "descriptor refused: BAD_SEPARATOR");
        assertRefused(s.handleGetObject("f3", buf, addr, 4096, desc + ":1000:1000", ch), EIO,
                "descriptor refused: WRONG_LENGTH"); // the header form is the HTTP layer's to strip
        assertRefused(s.handleGetObject("g", buf, addr - 1, 4096, desc, ch, -1, status), EIO, "is outside the descriptor");
        assertRefused(s.handleGetObject("g2", buf, addr + SIZE - 4095, 4096, desc, ch, -1, status), EIO,
                "is outside the descriptor");
        assertRefused(s.handleGetObject("h", buf, addr, 4096, desc, ch, SIZE - 4095, status), EIO,
                "exceeds the 1048576 registered bytes");
        assertRefused(s.handleGetObject("h2", buf, addr, 4096, desc, ch, -1, status), EIO, "local_offset -1");

        MemorySegment[] three = {arena.allocate(4096, 4096), arena.allocate(4096, 4096), arena.allocate(4096, 4096)};
        RdmaBuffer sg = s.registerBuffer(List.of(CuObjScatterGatherEntry.of(three[0]), CuObjScatterGatherEntry.of(three[1]),
                CuObjScatterGatherEntry.of(three[2])));
        assertRefused(s.handlePutObject("i", sg, addr, 4096, client.put(0, SIZE), ch, 0, status), EIO, "max_sge is 2");
        assertEquals(-1, status[0], "no submission, no status");

        s.deRegisterBuffer(buf);
        assertRefused(s.handleGetObject("j", buf, addr, 4096, desc, ch), EIO, "no registered buffer");
        CuObjServer other = server();
        RdmaBuffer foreign = other.registerBuffer(arena.allocate(4096, 4096), 4096);
        assertRefused(s.handleGetObject("k", foreign, addr, 4096, desc, ch), EIO, "no registered buffer");
    }

    // ------------------------------------------------------------------ -EAFNOSUPPORT

    /**
     * A transport that says it is verbs RC (there is no RDMA device on the test machines) and lends registration to
     * a real TCP transport: only what the facade asks of a verbs transport before refusing the DC flow is real;
     * opening a channel on it fails the test.
     */
    private static FakeTransport verbsLevel(Transport registrar) {
        return FakeTransport.builder("verbs:fake0").level(TransportLevel.VERBS_RC).flows(Transport.FLOW_RC_SESSION)
                .registrar(registrar).channels(FakeTransport.ChannelMode.FORBIDDEN).build();
    }

    @Test
    void eafnosupportForVerbsAndForDescriptorsWithoutATcpAgent() throws Exception {
        CuObjServer verbs = server(verbsLevel(serverTransport), keyed());
        assertFalse(verbs.isConnected(), "no transfer can succeed on a transport that does not serve the agent flow");
        int ch = verbs.allocateChannelId();
        RdmaBuffer buf = verbs.registerBuffer(arena.allocate(4096, 4096), 4096);
        assertNotNull(buf);
        String desc = client.get(0, 4096);
        int[] status = {-1};
        assertRefused(verbs.handleGetObject("dc", buf, client.addr(0), 4096, desc, ch, 0, status), EAFNOSUPPORT,
                "serves [rc-session], not agent-one-sided");
        assertEquals(-1, status[0]);
        assertRefused(verbs.handleGetObject("dc-bad", buf, client.addr(0), 4096, "bad", ch), EIO,
                "descriptor refused"); // -EIO checks come first

        CuObjServer s = server();
        int c = s.allocateChannelId();
        RdmaBuffer b = s.registerBuffer(arena.allocate(4096, 4096), 4096);
        CuObjDescriptor d = CuObjDescriptor.parse(desc).value();
        String noGid = new CuObjDescriptor(d.remoteAddress(), d.regionSize(), d.rkey(), 0x12, 0x345, false, Gid.ZERO).format();
        assertRefused(s.handleGetObject("ib", b, client.addr(0), 4096, noGid, c), EAFNOSUPPORT, "has_gid 0");
        String noPort = new CuObjDescriptor(d.remoteAddress(), d.regionSize(), d.rkey(), 0, d.targetNumber(), true,
                d.gid()).format();
        assertRefused(s.handleGetObject("port0", b, client.addr(0), 4096, noPort, c), EAFNOSUPPORT, "port 0");
    }

    // ------------------------------------------------------------------ -EACCES

    @Test
    void eaccesForAgentAddressesTheServersPolicyRefuses() throws Exception {
        CuObjRDMATunable strict = new CuObjRDMATunable();
        strict.setAgentKey(key); // no allow list: the loopback agent of the client is refused
        CuObjServer s = server(serverTransport, strict);
        assertTrue(s.isConnected());
        int ch = s.allocateChannelId();
        RdmaBuffer buf = s.registerBuffer(arena.allocate(4096, 4096), 4096);
        String desc = client.get(0, 4096);
        int[] status = {-1};
        assertRefused(s.handleGetObject("loop", buf, client.addr(0), 4096, desc, ch, 0, status), EACCES,
                "is a loopback address and not in the allow list");
        assertEquals(-1, status[0], "refused before any status");
        assertEquals(0, s.agentConnectionCount(), "nothing was dialed");

        // an address of one of this host's own interfaces, written into the descriptor by a hostile client
        CuObjDescriptor d = CuObjDescriptor.parse(desc).value();
        for (java.net.InetAddress own : java.util.Collections.list(java.net.NetworkInterface.getNetworkInterfaces())
                .stream().flatMap(java.net.NetworkInterface::inetAddresses)
                .filter(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress()).toList()) {
            String steered = CuObjDescriptor.forTcpAgent(new java.net.InetSocketAddress(own, 22), d.targetNumber(),
                    d.remoteAddress(), d.regionSize(), d.rkey()).format();
            assertRefused(s.handleGetObject("own", buf, client.addr(0), 4096, steered, ch), EACCES,
                    "an address of the server's own host");
        }

        // the configured allow list lets the same descriptor through
        CuObjServer allowing = server();
        int ach = allowing.allocateChannelId();
        RdmaBuffer abuf = allowing.registerBuffer(arena.allocate(4096, 4096), 4096);
        assertEquals(4096, allowing.handleGetObject("loop-ok", abuf, client.addr(0), 4096, desc, ach));
    }

    @Test
    void aBadAllowListKeepsTheSessionFromStarting() {
        CuObjRDMATunable bad = keyed();
        bad.setAllowAddresses("localhost");
        CuObjServer s = server(serverTransport, bad);
        assertFalse(s.isConnected());
        assertTrue(bad.validate().get(0).startsWith("allow_addresses"), bad.validate().toString());
    }

    // ------------------------------------------------------------------ -ENOMEM

    @Test
    void enomemWhenTheTransportHasNoRoomForAnotherConnection() throws Exception {
        TcpSettings d = TcpSettings.loopbackDefaults();
        TcpSettings oneChannel = new TcpSettings(d.bindAddress(), d.port(), d.advertisedAddress(), d.sendBuffer(),
                d.receiveBuffer(), d.noDelay(), d.frameSize(), d.keepaliveInterval(), d.keepaliveTimeout(), d.rnrWait(),
                d.handshakeTimeout(), d.regionCloseGrace(), d.shutdownTimeout(), 1, d.maxRegions(), d.maxQueueDepth(),
                d.keyLength(), d.serviceRanking());
        try (TcpTransport small = TcpTransport.start(oneChannel, () -> Telemetry.NOOP)) {
            CuObjServer s = server(small, keyed());
            int ch = s.allocateChannelId();
            RdmaBuffer buf = s.registerBuffer(arena.allocate(4096, 4096), 4096);
            assertEquals(4096, s.handleGetObject("lane0", buf, client.addr(0), 4096, client.get(0, 4096, 0), ch));
            int[] status = {-1};
            assertRefused(s.handleGetObject("lane1", buf, client.addr(0), 4096, client.get(0, 4096, 1), ch, 0, status),
                    ENOMEM, "no room for a connection");
            assertEquals(-1, status[0]);
            assertEquals(1, s.agentConnectionCount());
        }
    }

    // ------------------------------------------------------------------ -EIO with a status

    @Test
    void completionFailuresReturnEioWithTheirStatus() throws Exception {
        CuObjServer s = server();
        int ch = s.allocateChannelId();
        RdmaBuffer buf = s.registerBuffer(arena.allocate(SIZE, 4096), SIZE);
        int[] status = {-1};

        CuObjDescriptor d = CuObjDescriptor.parse(client.get(0, SIZE)).value();
        String badRkey = new CuObjDescriptor(d.remoteAddress(), d.regionSize(), d.rkey() ^ 0x5A5A, d.lid(),
                d.targetNumber(), true, d.gid()).format();
        assertRefused(s.handleGetObject("rkey", buf, client.addr(0), 4096, badRkey, ch, 0, status), EIO, "REM_ACCESS_ERR");
        assertEquals(WcStatus.REM_ACCESS_ERR.code(), status[0]);

        // the client's lane failed with that connection; once reset, the same channel serves a fresh descriptor
        awaitLaneReset();
        String fresh = client.get(0, SIZE);
        assertEquals(d.targetNumber(), CuObjDescriptor.parse(fresh).value().targetNumber(), "reset keeps the id");
        status[0] = -1;
        assertEquals(4096, s.handleGetObject("ok", buf, client.addr(0), 4096, fresh, ch, 0, status));
        assertEquals(WcStatus.SUCCESS.code(), status[0]);

        // a GET descriptor does not allow the server to READ
        assertRefused(s.handlePutObject("wrong-way", buf, client.addr(0), 4096, fresh, ch, 0, status), EIO,
                "REM_ACCESS_ERR");
        assertEquals(WcStatus.REM_ACCESS_ERR.code(), status[0]);

        // a server with another agent key is refused before any memory is touched
        CuObjRDMATunable other = new CuObjRDMATunable();
        other.setAgentKey(AgentKeys.generate());
        other.setAllowAddresses(Patterns.LOOPBACK); // the client agents listen on loopback
        CuObjServer stranger = server(serverTransport, other);
        int sc = stranger.allocateChannelId();
        RdmaBuffer sb = stranger.registerBuffer(arena.allocate(4096, 4096), 4096);
        awaitLaneReset();
        status[0] = -1;
        assertRefused(stranger.handleGetObject("key", sb, client.addr(0), 4096, client.get(0, 4096), sc, 0, status),
                EIO, DialPacing.UNREACHABLE);
        // answered as any failed dial (issue 24, finding 7): a refused key must not tell an agent from other ports
        assertEquals(WcStatus.RETRY_EXC_ERR.code(), status[0]);

        // an agent that is gone
        TcpTransport gone = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        var address = gone.agentAddress();
        gone.close();
        String nowhere = CuObjDescriptor.forTcpAgent(address, 1, client.addr(0), 4096, 1).format();
        status[0] = -1;
        assertRefused(s.handleGetObject("gone", buf, client.addr(0), 4096, nowhere, ch, 0, status), EIO,
                DialPacing.UNREACHABLE);
        assertEquals(WcStatus.RETRY_EXC_ERR.code(), status[0]);
    }

    /** Waits until the client's lane 0 has seen its connection end; {@code channel(0)} then resets it to INIT. */
    private void awaitLaneReset() throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (client.agent.channel(0).state() == ChannelState.CONNECTED && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(ChannelState.INIT, client.agent.channel(0).state());
    }

    // ------------------------------------------------------------------ poll

    @Test
    void pollRefusalsFailedCompletionsAndTheCapOf16() throws Exception {
        CuObjServer s = server();
        int ch = s.allocateChannelId();
        assertEquals(-EINVAL, s.poll(null, 1, ch));
        assertEquals(-EINVAL, s.poll(new CuObjAsyncEvent[1], -1, ch));
        assertEquals(-EINVAL, s.poll(new CuObjAsyncEvent[1], 1, ch + 1));
        assertEquals(-EINVAL, s.poll(new CuObjAsyncEvent[1], 1, INVALID_CHANNEL_ID));
        assertEquals(0, s.poll(new CuObjAsyncEvent[1], 1, ch), "nothing yet");
        assertEquals(0, s.poll(new CuObjAsyncEvent[1], 0, ch));

        RdmaBuffer buf = s.registerBuffer(arena.allocate(SIZE, 4096), SIZE);
        String desc = client.get(0, SIZE, 1);
        for (int i = 0; i < 20; i++) {
            assertEquals(0, s.handleGetObject("a" + i, buf, client.addr(i * 4096L), 4096, desc, ch, i * 4096L, null, i));
        }
        awaitOutstanding(s, ch, 20);
        CuObjAsyncEvent[] events = new CuObjAsyncEvent[32];
        assertEquals(16, s.poll(events, 100, ch), "max_events is capped to 16");
        assertEquals(4, s.poll(events, 100, ch));
        assertEquals(0, s.poll(events, 100, ch));

        for (int i = 0; i < 3; i++) {
            s.handleGetObject("b" + i, buf, client.addr(0), 4096, desc, ch, 0, null, "b" + i);
        }
        awaitOutstanding(s, ch, 3);
        CuObjAsyncEvent[] two = new CuObjAsyncEvent[2];
        assertEquals(2, s.poll(two, 16, ch), "no more than the array holds");
        assertEquals(1, s.poll(two, 16, ch));

        // a failed asynchronous completion: poll returns -EIO, the event is filled with its status
        CuObjDescriptor d = CuObjDescriptor.parse(desc).value();
        String badRkey = new CuObjDescriptor(d.remoteAddress(), d.regionSize(), d.rkey() ^ 1, d.lid(),
                d.targetNumber(), true, d.gid()).format();
        assertEquals(0, s.handleGetObject("fail", buf, client.addr(0), 4096, badRkey, ch, 0, null, "doomed"));
        awaitOutstanding(s, ch, 1);
        CuObjPollResult r = s.pollEvents(16, ch);
        assertEquals(-EIO, r.result());
        assertEquals(1, r.events().size());
        assertEquals("doomed", r.events().get(0).asyncHandle);
        assertEquals(WcStatus.REM_ACCESS_ERR.code(), r.events().get(0).status);
        assertEquals(WcStatus.REM_ACCESS_ERR, r.events().get(0).wcStatus());

        // freeing the channel drops what was queued; the next allocation of the id starts empty
        s.handleGetObject("c", buf, client.addr(0), 4096, client.get(0, SIZE, 0), ch, 0, null, "c");
        awaitOutstanding(s, ch, 1);
        s.freeChannelId(ch);
        assertEquals(ch, s.allocateChannelId());
        assertEquals(0, s.poll(events, 16, ch));
    }

    @Test
    void pollWaitBlocksUntilACompletionArrivesOrTheTimeoutPasses() throws Exception {
        CuObjServer s = server();
        int ch = s.allocateChannelId();
        CuObjAsyncEvent[] events = new CuObjAsyncEvent[4];
        long t0 = System.nanoTime();
        assertEquals(0, s.pollWait(events, 4, ch, Duration.ofMillis(100)));
        assertTrue(System.nanoTime() - t0 >= 90_000_000L, "it waited");
        assertEquals(-EINVAL, s.pollWait(events, 4, ch + 1, Duration.ofSeconds(5)), "refusals come at once");

        RdmaBuffer buf = s.registerBuffer(arena.allocate(4096, 4096), 4096);
        assertEquals(0, s.handleGetObject("w", buf, client.addr(0), 4096, client.get(0, 4096), ch, 0, null, "w"));
        assertEquals(1, s.pollWait(events, 4, ch, Duration.ofSeconds(10)));
        assertEquals("w", events[0].asyncHandle);
    }

    /** Waits until {@code n} asynchronous completions are queued (pollEvents would take them). */
    private static void awaitOutstanding(CuObjServer s, int ch, int n) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (s.queuedEventCount(ch) < n && System.nanoTime() < deadline) {
            Thread.sleep(2);
        }
        assertEquals(n, s.queuedEventCount(ch));
    }

    // ------------------------------------------------------------------ registration

    @Test
    void registrationRefusalsReturnNullAndChangeNothing() throws Exception {
        CuObjServer s = server();
        MemorySegment seg = arena.allocate(SIZE, 4096);
        int regions = serverTransport.regionCount();
        assertNull(s.registerBuffer((MemorySegment) null, 4096));
        assertNull(s.registerBuffer(seg, 0));
        assertNull(s.registerBuffer(seg, SIZE + 1));
        assertNull(s.registerBuffer(MemorySegment.ofArray(new byte[4096]), 4096), "heap memory");
        try (Arena confined = Arena.ofConfined()) {
            assertNull(s.registerBuffer(confined.allocate(4096), 4096), "confined memory");
        }
        assertNull(s.registerBuffer((List<CuObjScatterGatherEntry>) null));
        assertNull(s.registerBuffer(List.of()));
        List<CuObjScatterGatherEntry> eleven = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            eleven.add(new CuObjScatterGatherEntry(seg.asSlice(i * 4096L, 4096), 4096));
        }
        assertNull(s.registerBuffer(eleven), "more than 10 entries");
        assertNotNull(s.registerBuffer(eleven.subList(0, 10)), "10 entries");
        assertNull(s.registerBuffer(List.of(new CuObjScatterGatherEntry(null, 1))));
        assertNull(s.registerBuffer(List.of(new CuObjScatterGatherEntry(seg, 0))));
        assertNull(s.registerBuffer(List.of(new CuObjScatterGatherEntry(seg.asSlice(0, 10), 11))));
        assertNull(s.registerBuffer(List.of(CuObjScatterGatherEntry.of(seg),
                CuObjScatterGatherEntry.of(MemorySegment.ofArray(new byte[8])))), "one bad entry fails the lot");
        assertEquals(regions + 10, serverTransport.regionCount(), "only the 10-entry buffer stayed registered");
    }

    @Test
    void viewsAndDeregistrationFollowTheDocumentedRules() throws Exception {
        CuObjServer s = server();
        int ch = s.allocateChannelId();
        RdmaBuffer base = s.registerBuffer(arena.allocate(SIZE, 4096), SIZE);
        List<CuObjScatterGatherEntryWithOffset> ok = List.of(new CuObjScatterGatherEntryWithOffset(0, 4096));
        assertNull(s.getRDMABufferFromSgList(base, null));
        assertNull(s.getRDMABufferFromSgList(base, List.of()));
        assertNull(s.getRDMABufferFromSgList(null, ok));
        assertNull(s.getRDMABufferFromSgList(base, List.of(new CuObjScatterGatherEntryWithOffset(SIZE - 10, 11))),
                "an entry reaching outside the base");
        assertNull(s.getRDMABufferFromSgList(base, List.of(new CuObjScatterGatherEntryWithOffset(-1, 10))));
        assertNull(s.getRDMABufferFromSgList(base, List.of(new CuObjScatterGatherEntryWithOffset(0, SIZE),
                new CuObjScatterGatherEntryWithOffset(0, 1))), "views larger than the base");
        RdmaBuffer sg = s.registerBuffer(List.of(CuObjScatterGatherEntry.of(arena.allocate(4096, 4096)),
                CuObjScatterGatherEntry.of(arena.allocate(4096, 4096))));
        assertNull(s.getRDMABufferFromSgList(sg, ok), "a base with two entries");
        RdmaBuffer view = s.getRDMABufferFromSgList(base, ok);
        assertNotNull(view);
        assertNull(s.getRDMABufferFromSgList(view, ok), "a view of a view");
        CuObjServer other = server();
        assertNull(other.getRDMABufferFromSgList(base, ok), "another server's buffer");

        int count = s.bufferCount();
        s.putRDMABufferFromSgList(null);
        s.putRDMABufferFromSgList(base); // not a view: logged, nothing changes
        assertTrue(lastError().contains("not a view"), lastError());
        assertTrue(base.isActive());
        s.deRegisterBuffer(view); // a view is not deregistered: logged, nothing changes
        assertTrue(view.isActive());
        assertEquals(count, s.bufferCount());
        s.deRegisterBuffer(null);

        String desc = client.get(0, 4096);
        assertEquals(4096, s.handleGetObject("v", view, client.addr(0), 4096, desc, ch));
        s.deRegisterBuffer(base);
        s.deRegisterBuffer(base); // idempotent
        assertFalse(view.isActive(), "views end with their base");
        assertRefused(s.handleGetObject("v2", view, client.addr(0), 4096, desc, ch), EIO, "no registered buffer");
        s.putRDMABufferFromSgList(view);
        s.putRDMABufferFromSgList(view);
    }

    @Test
    void aLocalOffsetOnAMultiEntryBufferIsTreatedAsZero() throws Exception {
        CuObjServer s = server();
        int ch = s.allocateChannelId();
        MemorySegment a = arena.allocate(4096, 4096);
        MemorySegment b = arena.allocate(4096, 4096);
        Patterns.fill(a, 0, 4096, 1);
        Patterns.fill(b, 0, 4096, 2);
        RdmaBuffer sg = s.registerBuffer(List.of(CuObjScatterGatherEntry.of(a), CuObjScatterGatherEntry.of(b)));
        assertEquals(-EIO, s.handleGetObject("over", sg, client.addr(0), 4096, client.get(0, 4096), ch, 4097),
                "size + local_offset is still checked against the total first");
        assertEquals(4096, s.handleGetObject("zero", sg, client.addr(0), 4096, client.get(0, 4096), ch, 4096));
        assertTrue(telemetry.toString().contains("local_offset 4096 on a buffer with 2 entries is treated as 0"));
        assertEquals(Patterns.crc(a, 0, 4096), Patterns.crc(client.memory.segment(), 0, 4096), "the first entry went");
    }

    // ------------------------------------------------------------------ channels and construction

    @Test
    void channelsAreAllocatedLowestFirstAndFreedIdempotently() throws Exception {
        CuObjRDMATunable t = keyed();
        t.setNumDcis(4);
        CuObjServer s = server(serverTransport, t);
        assertEquals(List.of(0, 1, 2, 3), List.of(s.allocateChannelId(), s.allocateChannelId(), s.allocateChannelId(),
                s.allocateChannelId()));
        assertEquals(INVALID_CHANNEL_ID, s.allocateChannelId());
        s.freeChannelId(2);
        s.freeChannelId(2);
        s.freeChannelId(4);
        s.freeChannelId(INVALID_CHANNEL_ID);
        s.freeChannelId(-1);
        assertEquals(3, s.allocatedChannelCount());
        assertEquals(2, s.allocateChannelId());
        s.freeChannelId(0);
        s.freeChannelId(1);
        assertEquals(0, s.allocateChannelId());
    }

    @Test
    void concurrentAllocationHandsOutEveryIdOnce() throws Exception {
        CuObjRDMATunable t = keyed();
        t.setNumDcis(2000);
        CuObjServer s = server(serverTransport, t);
        java.util.Set<Integer> ids = java.util.concurrent.ConcurrentHashMap.newKeySet();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            threads.add(Thread.ofPlatform().start(() -> {
                int id;
                while ((id = s.allocateChannelId()) != INVALID_CHANNEL_ID) {
                    assertTrue(ids.add(id), "id " + id + " handed out twice");
                }
            }));
        }
        for (Thread th : threads) {
            th.join();
        }
        assertEquals(2000, ids.size());
    }

    @Test
    void invalidAddressesAndTunablesKeepTheSessionDown() {
        for (String ip : new String[] {"localhost", "[::1]", "1.2.3", "256.1.1.1", "", "01.2.3.4x", "::1::2"}) {
            CuObjServer s = new CuObjServer(serverTransport, ip, 0, CUOBJ_PROTO_RDMA_DC_V1, keyed());
            servers.add(s);
            assertFalse(s.isConnected(), ip);
            assertTrue(lastError().contains("is not a literal IPv4 or IPv6 address"), lastError());
        }
        CuObjServer nullIp = new CuObjServer(serverTransport, null, 0, CUOBJ_PROTO_RDMA_DC_V1, keyed());
        servers.add(nullIp);
        assertFalse(nullIp.isConnected());
        for (int port : new int[] {-1, 65536}) {
            CuObjServer s = new CuObjServer(serverTransport, "127.0.0.1", port, CUOBJ_PROTO_RDMA_DC_V1, keyed());
            servers.add(s);
            assertFalse(s.isConnected());
        }
        CuObjRDMATunable bad = keyed();
        bad.setNumDcis(0);
        bad.setRetryCount(8);
        bad.setDelayMode(CuObjDelayMode.CUOBJ_DELAY_INVALID);
        assertFalse(server(serverTransport, bad).isConnected());
        assertTrue(lastError().contains("num_dcis must be 1..65535, was 0; "), lastError());
        assertTrue(lastError().contains("retry_cnt must be 0..7"), lastError());
        CuObjRDMATunable shortKey = new CuObjRDMATunable();
        shortKey.setAgentKey(new byte[8]);
        shortKey.setAllowAddresses(Patterns.LOOPBACK); // the client agents listen on loopback
        assertFalse(server(serverTransport, shortKey).isConnected());

        CuObjServer oddProto = new CuObjServer(serverTransport, "fe80::1%1", 1, 4242, keyed());
        servers.add(oddProto);
        assertTrue(oddProto.isConnected(), "proto is not validated, as in C");
        assertEquals(4242, oddProto.proto());
    }

    @Test
    void theDcKeyCompatibilityModeDerivesTheClientsKey() throws Exception {
        CuObjRDMATunable compat = new CuObjRDMATunable();
        compat.setDcKey(0x12345678L);
        compat.setAgentKeyFromDcKey(true);
        compat.setAllowAddresses(Patterns.LOOPBACK); // the client agents listen on loopback
        try (InProcessClient compatClient = new InProcessClient(AgentKeys.fromDcKey(0x12345678L), SIZE, 1)) {
            CuObjServer s = server(serverTransport, compat);
            assertTrue(s.isConnected());
            int ch = s.allocateChannelId();
            RdmaBuffer buf = s.registerBuffer(arena.allocate(4096, 4096), 4096);
            assertEquals(4096, s.handleGetObject("compat", buf, compatClient.addr(0), 4096, compatClient.get(0, 4096), ch));
        }
    }

    @Test
    void aClosedSessionAnswersEnodevAndARestartedOneServesTheSameBuffers() throws Exception {
        CuObjServer s = server();
        RdmaBuffer buf = s.registerBuffer(arena.allocate(4096, 4096), 4096);
        int ch = s.allocateChannelId();
        assertEquals(4096, s.handleGetObject("before", buf, client.addr(0), 4096, client.get(0, 4096), ch));
        s.closeRDMASession();
        s.closeRDMASession();
        assertFalse(s.isConnected());
        assertRefused(s.handleGetObject("closed", buf, client.addr(0), 4096, client.get(0, 4096), ch), ENODEV, "no session");
        assertEquals(0, s.startRDMASession());
        assertEquals(0, s.startRDMASession());
        assertEquals(0, s.allocateChannelId(), "a new session starts with every channel free");
        String desc = freshDescriptor();
        assertEquals(4096, s.handleGetObject("after", buf, client.addr(0), 4096, desc, 0));
    }

    /** A descriptor on lane 0 once it saw the end of the connection the closed session dropped. */
    private String freshDescriptor() throws Exception {
        awaitLaneReset();
        return client.get(0, 4096);
    }

    @Test
    void transferLargeRefusesWhatItCannotChunk() throws Exception {
        CuObjServer s = server();
        int ch = s.allocateChannelId();
        RdmaBuffer sg = s.registerBuffer(List.of(CuObjScatterGatherEntry.of(arena.allocate(4096, 4096)),
                CuObjScatterGatherEntry.of(arena.allocate(4096, 4096))));
        assertRefused(s.transferLarge(CuObj.CUOBJ_INVALID, "op", sg, 1, 1, "", ch, 0, null), EIO, "neither GET nor PUT");
        assertRefused(s.transferLarge(CuObj.CUOBJ_GET, "sg", sg, 1, 2L << 30, "", ch, 0, null), EIO,
                "cannot be addressed by offset");
        assertEquals(8192, s.transferLarge(CuObj.CUOBJ_GET, "small", sg, client.addr(0), 8192, client.get(0, 8192), ch,
                0, null), "up to 1 GiB a multi-entry buffer is fine");
    }
}
