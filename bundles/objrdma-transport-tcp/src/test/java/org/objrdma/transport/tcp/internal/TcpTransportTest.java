package org.objrdma.transport.tcp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/** What only the TCP transport has: addresses, the handshake, keepalive, region leases, limits, shutdown. */
class TcpTransportTest {

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }

    private <T extends AutoCloseable> T later(T t) {
        resources.add(t);
        return t;
    }

    private TcpTransport transport(TcpSettings settings) throws IOException {
        return later(TcpTransport.start(settings, () -> Telemetry.NOOP));
    }

    private TcpTransport transport() throws IOException {
        return transport(TcpSettings.loopbackDefaults());
    }

    private MemorySegment memory(long size) {
        return later(Arena.ofShared()).allocate(size, 4096);
    }

    private static Completion await(Channel c) throws InterruptedException {
        Completion[] out = new Completion[1];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (c.poll(out) == 0) {
            if (System.nanoTime() > deadline) {
                fail("no completion on " + c);
            }
            TimeUnit.MICROSECONDS.sleep(100);
        }
        return out[0];
    }

    private static void connectBoth(Channel a, Channel b) throws Exception {
        CompletableFuture<Void> other = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                b.connect(a.localEndpoint());
                other.complete(null);
            } catch (Throwable t) {
                other.completeExceptionally(t);
            }
        });
        a.connect(b.localEndpoint());
        other.get(20, TimeUnit.SECONDS);
    }

    // ------------------------------------------------------------------ addressing and connecting

    @Test
    void ipv6LoopbackCarriesData() throws Exception {
        InetAddress v6 = InetAddress.getByName("::1");
        TcpTransport a;
        TcpTransport b;
        try {
            a = transport(TcpSettings.loopbackDefaults().withAddress(v6));
            b = transport(TcpSettings.loopbackDefaults().withAddress(v6));
        } catch (IOException e) {
            Assumptions.abort("no IPv6 loopback here: " + e);
            return;
        }
        assertEquals(v6, a.agentAddress().getAddress());
        Channel ca = later(a.openChannel(ChannelOptions.DEFAULT));
        Channel cb = later(b.openChannel(ChannelOptions.DEFAULT));
        connectBoth(ca, cb);

        MemorySegment src = memory(1 << 20);
        src.fill((byte) 0x66);
        MemorySegment dst = memory(1 << 20);
        MemoryRegion s = later(a.register(src, EnumSet.of(Access.LOCAL_WRITE)));
        MemoryRegion d = later(b.register(dst, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE)));
        ca.post(WorkRequest.write(1, ScatterGatherEntry.of(s), new RemoteRegion(d.address(), d.length(), d.rkey())));
        assertEquals(WcStatus.SUCCESS, await(ca).status());
        assertEquals(-1, src.mismatch(dst));
    }

    @Test
    void oneSidedConnectServesAPeerThatNeverConnects() throws Exception {
        TcpTransport server = transport();
        TcpTransport client = transport();
        // the client only registers memory and opens a channel, as a cuObject client does
        Channel clientChannel = later(client.openChannel(ChannelOptions.DEFAULT));
        MemorySegment clientMemory = memory(64 * 1024);
        MemoryRegion clientRegion = later(client.register(clientMemory,
                EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ)));

        Channel serverChannel = later(server.openChannel(ChannelOptions.DEFAULT));
        serverChannel.connect(clientChannel.localEndpoint());
        assertEquals(ChannelState.CONNECTED, serverChannel.state());
        assertEquals(ChannelState.CONNECTED, clientChannel.state(), "an authenticated dial connects an INIT channel");
        assertNull(clientChannel.remoteEndpoint(), "no endpoint was given to the client's connect");

        MemorySegment staging = memory(64 * 1024);
        staging.fill((byte) 0x17);
        MemoryRegion stagingRegion = later(server.register(staging, EnumSet.of(Access.LOCAL_WRITE)));
        serverChannel.post(WorkRequest.write(1, ScatterGatherEntry.of(stagingRegion), new RemoteRegion(clientRegion.address(), clientRegion.length(), clientRegion.rkey())));
        assertEquals(WcStatus.SUCCESS, await(serverChannel).status());
        assertEquals(-1, clientMemory.mismatch(staging), "GET: server WRITE into client memory");

        clientMemory.fill((byte) 0x29);
        serverChannel.post(WorkRequest.read(2, ScatterGatherEntry.of(stagingRegion), new RemoteRegion(clientRegion.address(), clientRegion.length(), clientRegion.rkey())));
        assertEquals(WcStatus.SUCCESS, await(serverChannel).status());
        assertEquals(-1, clientMemory.mismatch(staging), "PUT: server READ from client memory");

        // the RC shape still works afterwards: the client names the peer that connected it
        clientChannel.connect(serverChannel.localEndpoint());
        assertEquals(serverChannel.localEndpoint(), clientChannel.remoteEndpoint());
        // but not some other peer
        Channel stranger = later(server.openChannel(ChannelOptions.DEFAULT));
        TransportException e = assertThrows(TransportException.class, () -> clientChannel.connect(stranger.localEndpoint()));
        assertEquals(TransportError.WRONG_STATE, e.error());
    }

    @Test
    void aKeyHandedOutByTheControlPlaneIsTheChannelsKey() throws Exception {
        TcpTransport server = transport();
        TcpTransport client = transport();
        byte[] agentKey = new byte[24];
        new java.security.SecureRandom().nextBytes(agentKey);
        Channel clientChannel = later(client.openChannel(ChannelOptions.DEFAULT.withAccessKey(agentKey)));
        EndpointInfo.Tcp endpoint = (EndpointInfo.Tcp) clientChannel.localEndpoint();
        assertTrue(java.util.Arrays.equals(agentKey, endpoint.key()), "the given key, not a random one");

        // a server that knows only address, channel id and the shared key (the cuObject descriptor case) connects
        Channel serverChannel = later(server.openChannel(ChannelOptions.DEFAULT));
        serverChannel.connect(new EndpointInfo.Tcp(endpoint.address(), endpoint.channelId(), agentKey));
        assertEquals(ChannelState.CONNECTED, serverChannel.state());

        // a different key is refused, as for random keys
        Channel other = later(client.openChannel(ChannelOptions.DEFAULT.withAccessKey(agentKey)));
        byte[] wrong = agentKey.clone();
        wrong[0] ^= 1;
        Channel intruder = later(server.openChannel(ChannelOptions.DEFAULT));
        EndpointInfo.Tcp otherEndpoint = (EndpointInfo.Tcp) other.localEndpoint();
        TransportException e = assertThrows(TransportException.class,
                () -> intruder.connect(new EndpointInfo.Tcp(otherEndpoint.address(), otherEndpoint.channelId(), wrong)));
        assertEquals(TransportError.AUTHENTICATION_FAILED, e.error());
        assertEquals(ChannelState.INIT, other.state());
    }

    @Test
    void crossedConnectsAlwaysEndWithOneConnection() throws Exception {
        TcpTransport a = transport();
        TcpTransport b = transport();
        for (int i = 0; i < 40; i++) {
            Channel ca = a.openChannel(ChannelOptions.DEFAULT);
            Channel cb = b.openChannel(ChannelOptions.DEFAULT);
            connectBoth(ca, cb);
            assertEquals(ChannelState.CONNECTED, ca.state());
            assertEquals(ChannelState.CONNECTED, cb.state());
            assertEquals(1, a.connectionCount(), "round " + i);
            assertEquals(1, b.connectionCount(), "round " + i);
            assertEquals(cb.localEndpoint(), ca.remoteEndpoint());
            assertEquals(ca.localEndpoint(), cb.remoteEndpoint());
            ca.close();
            cb.close();
            assertEquals(0, a.connectionCount());
        }
    }

    @Test
    void connectToNothingAndToSelfAreRefused() throws Exception {
        TcpTransport a = transport();
        Channel ca = later(a.openChannel(new ChannelOptions(8, 8, 2, Duration.ofSeconds(2))));
        // a port nobody listens on: bind and close a server socket to find one
        int freePort;
        try (var ss = java.nio.channels.ServerSocketChannel.open()) {
            ss.bind(new InetSocketAddress("127.0.0.1", 0));
            freePort = ((InetSocketAddress) ss.getLocalAddress()).getPort();
        }
        TransportException e = assertThrows(TransportException.class, () -> ca.connect(
                new EndpointInfo.Tcp(new InetSocketAddress("127.0.0.1", freePort), 1, new byte[32])));
        assertEquals(TransportError.CONNECT_FAILED, e.error());
        assertEquals(ChannelState.INIT, ca.state());

        e = assertThrows(TransportException.class, () -> ca.connect(ca.localEndpoint()));
        assertEquals(TransportError.INVALID_ARGUMENT, e.error());
    }

    @Test
    void unknownChannelAndWrongKeyLookTheSameAndTouchNothing() throws Exception {
        TcpTransport a = transport();
        TcpTransport b = transport();
        Channel ca = later(a.openChannel(ChannelOptions.DEFAULT));
        Channel cb = later(b.openChannel(ChannelOptions.DEFAULT));
        EndpointInfo.Tcp real = (EndpointInfo.Tcp) cb.localEndpoint();

        TransportException noSuchChannel = assertThrows(TransportException.class,
                () -> ca.connect(new EndpointInfo.Tcp(real.address(), real.channelId() + 1000, real.key())));
        byte[] wrong = real.key();
        wrong[31] ^= (byte) 0x80;
        TransportException wrongKey = assertThrows(TransportException.class,
                () -> ca.connect(new EndpointInfo.Tcp(real.address(), real.channelId(), wrong)));

        assertEquals(TransportError.AUTHENTICATION_FAILED, noSuchChannel.error());
        assertEquals(TransportError.AUTHENTICATION_FAILED, wrongKey.error());
        assertEquals(ChannelState.INIT, cb.state());
        assertEquals(0, b.connectionCount(), "no connection was attached");
    }

    @Test
    void rawPeerWithTheKeyIsAttachedAndAWrongOneRefused() throws Exception {
        TcpTransport b = transport();
        Channel cb = later(b.openChannel(ChannelOptions.DEFAULT));
        EndpointInfo.Tcp ep = (EndpointInfo.Tcp) cb.localEndpoint();
        byte[] code = new byte[1];
        byte[] wrong = ep.key();
        wrong[0]++;
        try (RawPeer refused = RawPeer.dial(ep, wrong, RawPeer.someone(), code)) {
            assertEquals(Wire.REPLY_AUTH_REFUSED, code[0]);
            assertEquals(-1, refused.socket.read(ByteBuffer.allocate(1)), "the agent hangs up after a refusal");
        }
        try (RawPeer _ = RawPeer.dial(ep, ep.key(), RawPeer.someone(), code)) {
            assertEquals(Wire.REPLY_OK, code[0]);
            assertEquals(ChannelState.CONNECTED, cb.state());
        }
    }

    @Test
    void garbageAndSilenceAtTheAgentAreDropped() throws Exception {
        TcpSettings s = TcpSettings.from(TcpSettings.configWith(Map.of("handshake.timeout.ms", 300L)), null);
        TcpTransport b = transport(s);
        try (SocketChannel junk = SocketChannel.open(b.agentAddress())) {
            ByteBuffer challenge = ByteBuffer.allocate(Wire.CHALLENGE_BYTES);
            MemoryAgent.readFully(junk, challenge);
            MemoryAgent.writeFully(junk, ByteBuffer.wrap(new byte[200]));
            ByteBuffer reply = ByteBuffer.allocate(Wire.REPLY_BYTES);
            MemoryAgent.readFully(junk, reply);
            assertEquals(Wire.REPLY_BAD_HELLO, reply.get(4));
        }
        long start = System.nanoTime();
        try (SocketChannel silent = SocketChannel.open(b.agentAddress())) {
            ByteBuffer sink = ByteBuffer.allocate(256);
            int n;
            while ((n = silent.read(sink.clear())) >= 0) {
                assertTrue(n >= 0);
            }
        }
        long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(waited < 10_000, "a silent client is dropped after the handshake timeout, took " + waited + " ms");
        // the agent still serves real peers
        Channel ca = later(transport().openChannel(ChannelOptions.DEFAULT));
        Channel cb = later(b.openChannel(ChannelOptions.DEFAULT));
        connectBoth(ca, cb);
    }

    // ------------------------------------------------------------------ liveness

    @Test
    void silentPeerFailsOutstandingWorkWithinTheKeepaliveTimeout() throws Exception {
        Duration timeout = Duration.ofMillis(600);
        TcpTransport a = transport(TcpSettings.loopbackDefaults()
                .withTimes(Duration.ofMillis(100), timeout, Duration.ofMillis(50)));
        Channel ca = later(a.openChannel(ChannelOptions.DEFAULT));
        EndpointInfo.Tcp ep = (EndpointInfo.Tcp) ca.localEndpoint();
        MemorySegment src = memory(4096);
        MemoryRegion s = later(a.register(src, EnumSet.of(Access.LOCAL_WRITE)));
        byte[] code = new byte[1];
        try (RawPeer _ = RawPeer.dial(ep, ep.key(), RawPeer.someone(), code)) {
            assertEquals(Wire.REPLY_OK, code[0]);
            long start = System.nanoTime();
            ca.post(WorkRequest.write(9, ScatterGatherEntry.of(s), 0x1000, 77));
            Completion c = await(ca);
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(WcStatus.RETRY_EXC_ERR, c.status());
            assertEquals(EndCause.KEEPALIVE_TIMEOUT.vendorCode(), c.vendorError());
            // the bound is the timeout plus the timer's granularity; never asserted tighter than that on a busy box
            assertTrue(took < timeout.toMillis() + 5000, "took " + took + " ms");
            assertEquals(ChannelState.ERROR, ca.state());
        }
    }

    @Test
    void idleConnectionStaysUpThroughPings() throws Exception {
        TcpSettings s = TcpSettings.loopbackDefaults().withTimes(Duration.ofMillis(100), Duration.ofMillis(1000),
                Duration.ofMillis(10));
        TcpTransport a = transport(s);
        TcpTransport b = transport(s);
        Channel ca = later(a.openChannel(ChannelOptions.DEFAULT));
        Channel cb = later(b.openChannel(ChannelOptions.DEFAULT));
        connectBoth(ca, cb);
        TimeUnit.MILLISECONDS.sleep(2500); // two and a half timeouts of silence, were it not for the pings
        assertEquals(ChannelState.CONNECTED, ca.state());
        assertEquals(ChannelState.CONNECTED, cb.state());
    }

    // ------------------------------------------------------------------ regions under load

    @Test
    void regionClosedBetweenFramesRefusesTheRestOfTheWrite() throws Exception {
        TcpTransport b = transport();
        Channel cb = later(b.openChannel(ChannelOptions.DEFAULT));
        MemorySegment target = memory(3 * 4096);
        MemoryRegion region = b.register(target, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        EndpointInfo.Tcp ep = (EndpointInfo.Tcp) cb.localEndpoint();
        byte[] code = new byte[1];
        try (RawPeer peer = RawPeer.dial(ep, ep.key(), RawPeer.someone(), code)) {
            peer.frame(Wire.REQUEST, Opcode.WRITE.verbsOpcode(), 0, 1, region.address(), 2 * 4096, region.rkey());
            peer.frame(Wire.REQUEST_DATA, 0, 0, 1, 0, 4096, 0);
            peer.bytes(4096, (byte) 1);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (target.get(ValueLayout.JAVA_BYTE, 4095) != 1) {
                assertTrue(System.nanoTime() < deadline, "first frame never landed");
                Thread.onSpinWait();
            }
            region.close(); // between frames: no lease out, returns at once
            peer.frame(Wire.REQUEST_DATA, 0, 0, 1, 0, 4096, 0);
            peer.bytes(4096, (byte) 2);
            ByteBuffer ack = peer.awaitAck();
            assertEquals(1, Wire.seq(ack));
            assertEquals(WcStatus.REM_ACCESS_ERR.code(), Wire.status(ack));
            assertEquals(0, target.get(ValueLayout.JAVA_BYTE, 4096), "nothing of the second frame landed");
        }
    }

    @Test
    void regionCloseCutsAPeerStalledInsideAFrame() throws Exception {
        TcpSettings s = TcpSettings.from(TcpSettings.configWith(Map.of("region.close.grace.ms", 200L)), null);
        TcpTransport b = transport(s);
        Channel cb = later(b.openChannel(ChannelOptions.DEFAULT));
        MemorySegment target = memory(8192);
        MemoryRegion region = b.register(target, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        EndpointInfo.Tcp ep = (EndpointInfo.Tcp) cb.localEndpoint();
        byte[] code = new byte[1];
        try (RawPeer peer = RawPeer.dial(ep, ep.key(), RawPeer.someone(), code)) {
            peer.frame(Wire.REQUEST, Opcode.WRITE.verbsOpcode(), 0, 1, region.address(), 8192, region.rkey());
            peer.frame(Wire.REQUEST_DATA, 0, 0, 1, 0, 8192, 0);
            peer.bytes(100, (byte) 1); // and then nothing: the reader sits in the region's memory
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (target.get(ValueLayout.JAVA_BYTE, 99) != 1) {
                assertTrue(System.nanoTime() < deadline, "payload never started landing");
                Thread.onSpinWait();
            }
            long start = System.nanoTime();
            region.close();
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(took >= 150 && took < 5000, "close waited the grace, then cut the connection: " + took + " ms");
            assertFalse(region.isOpen());
            awaitZeroConnections(b);
            assertEquals(ChannelState.ERROR, cb.state());
        }
    }

    private static void awaitZeroConnections(TcpTransport t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.connectionCount() != 0) {
            assertTrue(System.nanoTime() < deadline, "connections left: " + t.connectionCount());
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }

    @Test
    void zeroLengthWriteWithImmediateNeedsNoRegion() throws Exception {
        TcpTransport a = transport();
        TcpTransport b = transport();
        Channel ca = later(a.openChannel(ChannelOptions.DEFAULT));
        Channel cb = later(b.openChannel(ChannelOptions.DEFAULT));
        connectBoth(ca, cb);
        cb.post(WorkRequest.recv(5));
        ca.post(new WorkRequest(6, Opcode.WRITE_WITH_IMM, List.of(), 0, 0, 0x0BADCAFE, true));
        assertEquals(Completion.success(6, WcOpcode.RDMA_WRITE, 0), await(ca));
        assertEquals(new Completion(5, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, 0, true, 0x0BADCAFE, 0), await(cb));
    }

    // ------------------------------------------------------------------ arguments and limits

    @Test
    void registrationRulesAndKeys() throws Exception {
        TcpTransport a = transport();
        try (Arena confined = Arena.ofConfined()) {
            TransportException e = assertThrows(TransportException.class,
                    () -> a.register(confined.allocate(64), EnumSet.of(Access.LOCAL_WRITE)));
            assertEquals(TransportError.INVALID_ARGUMENT, e.error());
        }
        MemorySegment m = memory(64);
        TransportException e = assertThrows(TransportException.class,
                () -> a.register(m, EnumSet.of(Access.REMOTE_WRITE)));
        assertEquals(TransportError.INVALID_ARGUMENT, e.error(), "REMOTE_WRITE without LOCAL_WRITE");
        e = assertThrows(TransportException.class, () -> a.register(m.asReadOnly(), EnumSet.of(Access.LOCAL_WRITE)));
        assertEquals(TransportError.INVALID_ARGUMENT, e.error(), "read-only segment for writing");
        assertEquals(0, a.regionCount(), "refusals register nothing");

        Set<Integer> rkeys = new HashSet<>();
        List<MemoryRegion> regions = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            MemoryRegion r = a.register(m, EnumSet.of(Access.REMOTE_READ));
            regions.add(r);
            assertTrue(r.rkey() != 0);
            assertTrue(rkeys.add(r.rkey()), "rkeys are never reused while registered");
        }
        int sequential = 0;
        for (int i = 1; i < regions.size(); i++) {
            if (regions.get(i).rkey() - regions.get(i - 1).rkey() == 1) {
                sequential++;
            }
        }
        assertTrue(sequential < 5, "rkeys must not be sequential");
        regions.forEach(MemoryRegion::close);
        assertEquals(0, a.regionCount());
    }

    @Test
    void queueAndSgeLimitsAreRefusedWithoutSideEffects() throws Exception {
        TcpTransport a = transport();
        TcpTransport other = transport();
        Channel ca = later(a.openChannel(new ChannelOptions(2, 2, 1, Duration.ofSeconds(5))));
        MemorySegment m = memory(128);
        MemoryRegion r = later(a.register(m, EnumSet.of(Access.LOCAL_WRITE)));
        MemoryRegion foreign = later(other.register(m, EnumSet.of(Access.LOCAL_WRITE)));
        ca.post(WorkRequest.recv(1, new ScatterGatherEntry(r, 0, 64)));
        ca.post(WorkRequest.recv(2, new ScatterGatherEntry(r, 64, 64)));
        TransportException e = assertThrows(TransportException.class, () -> ca.post(WorkRequest.recv(3)));
        assertEquals(TransportError.RESOURCE_EXHAUSTED, e.error());
        e = assertThrows(TransportException.class, () -> ca.post(new WorkRequest(4, Opcode.RECV,
                List.of(new ScatterGatherEntry(r, 0, 8), new ScatterGatherEntry(r, 8, 8)), 0, 0, 0, true)));
        assertEquals(TransportError.INVALID_ARGUMENT, e.error(), "too many SGEs");
        Channel cb = later(a.openChannel(ChannelOptions.DEFAULT));
        e = assertThrows(TransportException.class, () -> cb.post(WorkRequest.recv(5, ScatterGatherEntry.of(foreign))));
        assertEquals(TransportError.INVALID_ARGUMENT, e.error(), "region of another transport");
        // a batch that does not fit is refused whole, with the reason in the failed future
        CompletableFuture<BatchResult> tooMany = ca.submit(List.of(WorkRequest.recv(8)), Duration.ofSeconds(1));
        var ex = assertThrows(java.util.concurrent.ExecutionException.class, tooMany::get);
        assertEquals(TransportError.RESOURCE_EXHAUSTED, ((TransportException) ex.getCause()).error());
    }

    @Test
    void channelAndDepthLimits() throws Exception {
        TcpSettings s = TcpSettings.from(TcpSettings.configWith(Map.of("max.channels", 2, "max.queue.depth", 16)), null);
        TcpTransport a = transport(s);
        later(a.openChannel(new ChannelOptions(16, 16, 1, Duration.ofSeconds(1))));
        TransportException e = assertThrows(TransportException.class,
                () -> a.openChannel(new ChannelOptions(17, 1, 1, Duration.ofSeconds(1))));
        assertEquals(TransportError.RESOURCE_EXHAUSTED, e.error());
        later(a.openChannel(new ChannelOptions(1, 1, 1, Duration.ofSeconds(1))));
        e = assertThrows(TransportException.class, () -> a.openChannel(new ChannelOptions(1, 1, 1, Duration.ofSeconds(1))));
        assertEquals(TransportError.RESOURCE_EXHAUSTED, e.error());
        assertEquals(2, a.channelCount());
    }

    // ------------------------------------------------------------------ reset

    private static void awaitState(Channel c, ChannelState state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (c.state() != state) {
            assertTrue(System.nanoTime() < deadline, c + " stayed " + c.state() + ", expected " + state);
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }

    @Test
    void resetEndsThePeersConnectionAndTheAgentTakesTheChannelAgain() throws Exception {
        TcpTransport a = transport();
        TcpTransport b = transport();
        Channel ca = later(a.openChannel(ChannelOptions.DEFAULT));
        Channel cb = later(b.openChannel(ChannelOptions.DEFAULT));
        connectBoth(ca, cb);
        EndpointInfo.Tcp ep = (EndpointInfo.Tcp) ca.localEndpoint();

        ca.reset();

        assertEquals(ChannelState.INIT, ca.state());
        assertEquals(0, a.connectionCount(), "the connection's threads have stopped");
        awaitState(cb, ChannelState.ERROR); // the peer sees the connection end
        // the agent still knows the channel by its number and key: a new authenticated dial attaches
        byte[] code = new byte[1];
        try (RawPeer _ = RawPeer.dial(ep, ep.key(), RawPeer.someone(), code)) {
            assertEquals(Wire.REPLY_OK, code[0]);
            assertEquals(ChannelState.CONNECTED, ca.state());
        }
        awaitState(ca, ChannelState.ERROR);
        ca.reset();
        cb.reset();
        connectBoth(ca, cb);
        assertEquals(1, a.connectionCount());
        assertEquals(1, b.connectionCount());
    }

    @Test
    void aConnectionFromBeforeTheResetNeverDeliversIntoTheChannel() throws Exception {
        TcpTransport b = transport();
        Channel cb = later(b.openChannel(ChannelOptions.DEFAULT));
        MemorySegment target = memory(8192);
        MemoryRegion region = later(b.register(target, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE)));
        EndpointInfo.Tcp ep = (EndpointInfo.Tcp) cb.localEndpoint();
        byte[] code = new byte[1];
        try (RawPeer stale = RawPeer.dial(ep, ep.key(), RawPeer.someone(), code)) {
            assertEquals(Wire.REPLY_OK, code[0]);
            stale.frame(Wire.REQUEST, Opcode.WRITE.verbsOpcode(), 0, 1, region.address(), 4096, region.rkey());
            stale.frame(Wire.REQUEST_DATA, 0, 0, 1, 0, 4096, 0);
            stale.bytes(100, (byte) 1); // and then it stalls: the reader sits inside the frame, in the region
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (target.get(ValueLayout.JAVA_BYTE, 99) != 1) {
                assertTrue(System.nanoTime() < deadline, "payload never started landing");
                Thread.onSpinWait();
            }

            cb.reset();

            assertEquals(ChannelState.INIT, cb.state());
            try (RawPeer fresh = RawPeer.dial(ep, ep.key(), RawPeer.someone(), code)) {
                assertEquals(Wire.REPLY_OK, code[0], "the reset channel takes a new connection");
                try {
                    // the rest of the stale frame, and a whole new request: the socket is cut, nothing may land
                    stale.bytes(3996, (byte) 2);
                    stale.frame(Wire.REQUEST, Opcode.WRITE.verbsOpcode(), 0, 2, region.address() + 200, 16,
                            region.rkey());
                    stale.frame(Wire.REQUEST_DATA, 0, 0, 2, 0, 16, 0);
                    stale.bytes(16, (byte) 2);
                } catch (IOException expected) {
                    // the reset closed the stale connection: the peer may notice on write
                }
                fresh.frame(Wire.REQUEST, Opcode.WRITE.verbsOpcode(), 0, 1, region.address() + 4096, 4096,
                        region.rkey());
                fresh.frame(Wire.REQUEST_DATA, 0, 0, 1, 0, 4096, 0);
                fresh.bytes(4096, (byte) 3);
                ByteBuffer ack = fresh.awaitAck();
                assertEquals(WcStatus.SUCCESS.code(), Wire.status(ack));
            }
            assertTrue(allBytes(target, 100, 3996, (byte) 0), "nothing of the stale frame landed after the reset");
            assertTrue(allBytes(target, 4096, 4096, (byte) 3), "the new connection's write landed, and only it");
        }
    }

    private static boolean allBytes(MemorySegment s, long offset, long length, byte value) {
        for (long i = 0; i < length; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, offset + i) != value) {
                return false;
            }
        }
        return true;
    }

    @Test
    void aFlushedReadNeverLandsAndCarriesTheResetCause() throws Exception {
        TcpTransport a = transport();
        Channel ca = later(a.openChannel(ChannelOptions.DEFAULT));
        MemorySegment local = memory(4096);
        MemoryRegion mine = later(a.register(local, EnumSet.of(Access.LOCAL_WRITE)));
        EndpointInfo.Tcp ep = (EndpointInfo.Tcp) ca.localEndpoint();
        byte[] code = new byte[1];
        try (RawPeer peer = RawPeer.dial(ep, ep.key(), RawPeer.someone(), code)) {
            assertEquals(Wire.REPLY_OK, code[0]);
            ca.post(WorkRequest.read(7, ScatterGatherEntry.of(mine), 0x1000, 99));
            // the peer reads the request and answers only after the reset
            ByteBuffer request = ByteBuffer.allocate(Wire.HEADER_BYTES);
            MemoryAgent.readFully(peer.socket, request);
            assertEquals(Wire.REQUEST, Wire.type(request));

            ca.reset();

            Completion[] out = new Completion[1];
            assertEquals(1, ca.poll(out), "the flushed READ is there to poll when reset returns");
            assertEquals(7, out[0].wrId());
            assertEquals(WcStatus.WR_FLUSH_ERR, out[0].status());
            assertEquals(EndCause.RESET.vendorCode(), out[0].vendorError());
            ByteBuffer sink = ByteBuffer.allocate(256);
            while (peer.socket.read(sink.clear()) >= 0) {
                // pings sent before the reset, then the end of the stream: the reset closed the connection
            }
            try {
                peer.frame(Wire.RESPONSE_DATA, 0, 0, Wire.seq(request), 0, 4096, 0);
                peer.bytes(4096, (byte) 4);
                peer.frame(Wire.ACK, 0, 0, Wire.seq(request), 0, 0, 0);
            } catch (IOException expected) {
                // the connection is gone
            }
        }
        assertTrue(allBytes(local, 0, 4096, (byte) 0), "the READ's memory was not touched after the reset");
    }

    @Test
    void resetFromACompletionCallbackOnTheConnectionThreadIsRefused() throws Exception {
        TcpTransport a = transport();
        TcpTransport b = transport();
        Channel ca = later(a.openChannel(ChannelOptions.DEFAULT));
        Channel cb = later(b.openChannel(ChannelOptions.DEFAULT));
        connectBoth(ca, cb);
        MemoryRegion src = later(a.register(memory(64), EnumSet.of(Access.LOCAL_WRITE)));
        MemoryRegion dst = later(b.register(memory(64), EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE)));
        CompletableFuture<TransportException> refusal = new CompletableFuture<>();
        // attached before anything can complete the receive: it runs on cb's reader thread
        cb.submit(List.of(WorkRequest.recv(1)), Duration.ofSeconds(30)).whenComplete((r, t) -> {
            try {
                cb.reset();
                refusal.complete(null);
            } catch (TransportException e) {
                refusal.complete(e);
            }
        });
        ca.post(WorkRequest.writeWithImm(2, ScatterGatherEntry.of(src), dst.address(), dst.rkey(), 5));
        assertEquals(WcStatus.SUCCESS, await(ca).status());

        TransportException e = refusal.get(10, TimeUnit.SECONDS);
        assertEquals(TransportError.WRONG_STATE, e == null ? null : e.error());
        assertEquals(ChannelState.CONNECTED, cb.state(), "a refused reset changes nothing");
        cb.reset(); // from a thread of the caller's own it works
        assertEquals(ChannelState.INIT, cb.state());
    }

    // ------------------------------------------------------------------ shutdown and telemetry

    @Test
    void shutdownIsOrderedCompleteAndIdempotent() throws Exception {
        TcpTransport a = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        TcpTransport b = transport();
        Channel ca = a.openChannel(ChannelOptions.DEFAULT);
        Channel cb = later(b.openChannel(ChannelOptions.DEFAULT));
        connectBoth(ca, cb);
        MemorySegment m = memory(4096);
        MemoryRegion r = a.register(m, EnumSet.of(Access.LOCAL_WRITE));
        CompletableFuture<BatchResult> pending = ca.submit(List.of(WorkRequest.recv(1, ScatterGatherEntry.of(r))),
                Duration.ofSeconds(60));
        String prefix = a.threadPrefix();
        // the connection's reader and writer may start just after both sides report CONNECTED
        long started = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (threads(prefix) < 4 && System.nanoTime() < started) {
            TimeUnit.MILLISECONDS.sleep(5);
        }
        assertTrue(threads(prefix) >= 4, "agent, timer, reader, writer");

        a.close();
        a.close();

        assertEquals(WcStatus.WR_FLUSH_ERR, pending.get(5, TimeUnit.SECONDS).completions().get(0).status());
        assertEquals(ChannelState.CLOSED, ca.state());
        assertFalse(r.isOpen(), "regions are invalidated");
        r.close(); // the owner's close afterwards is harmless
        assertFalse(a.isAvailable());
        assertTrue(a.unavailabilityCause().isPresent());
        TransportException e = assertThrows(TransportException.class, () -> a.register(m, EnumSet.of(Access.LOCAL_WRITE)));
        assertEquals(TransportError.UNAVAILABLE, e.error());
        e = assertThrows(TransportException.class, () -> a.openChannel(ChannelOptions.DEFAULT));
        assertEquals(TransportError.UNAVAILABLE, e.error());
        // close() joins every thread it started (agent, timer, each connection's reader and writer): none is left
        // the moment it returns
        assertEquals(0, threads(prefix), "every thread of the transport has stopped");
        assertThrows(IOException.class, () -> SocketChannel.open(a.agentAddress()), "agent socket closed");
        // the peer notices
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (cb.state() != ChannelState.ERROR) {
            assertTrue(System.nanoTime() < deadline, "peer channel still " + cb.state());
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }

    private static long threads(String prefix) {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith(prefix + "-")).count();
    }

    @Test
    void countsWhatItDoes() throws Exception {
        Map<Counter, LongAdder> counts = new EnumMap<>(Counter.class);
        for (Counter c : Counter.values()) {
            counts.put(c, new LongAdder());
        }
        Telemetry telemetry = new Telemetry() {
            @Override
            public void add(Counter counter, long delta) {
                counts.get(counter).add(delta);
            }

            @Override
            public long value(Counter counter) {
                return counts.get(counter).sum();
            }

            @Override
            public Map<Counter, Long> snapshot() {
                throw new UnsupportedOperationException();
            }
        };
        TcpTransport a = later(TcpTransport.start(TcpSettings.loopbackDefaults(), () -> telemetry));
        TcpTransport b = later(TcpTransport.start(TcpSettings.loopbackDefaults(), () -> telemetry));
        Channel ca = a.openChannel(ChannelOptions.DEFAULT);
        Channel cb = b.openChannel(ChannelOptions.DEFAULT);
        connectBoth(ca, cb);
        MemorySegment m = memory(8192);
        MemoryRegion src = a.register(m.asSlice(0, 4096), EnumSet.of(Access.LOCAL_WRITE));
        MemoryRegion dst = b.register(m.asSlice(4096, 4096), EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE,
                Access.REMOTE_READ));
        ca.post(WorkRequest.write(1, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())));
        assertTrue(await(ca).isSuccess());
        ca.post(WorkRequest.read(2, new ScatterGatherEntry(src, 0, 100), dst.address(), dst.rkey()));
        assertTrue(await(ca).isSuccess());
        ca.post(WorkRequest.write(3, ScatterGatherEntry.of(src), dst.address(), dst.rkey() + 1));
        assertEquals(WcStatus.REM_ACCESS_ERR, await(ca).status());
        ca.close();
        cb.close();
        src.close();
        dst.close();

        assertEquals(2, telemetry.value(Counter.TRANSPORT_REGIONS_REGISTERED));
        assertEquals(2, telemetry.value(Counter.TRANSPORT_REGIONS_DEREGISTERED));
        assertEquals(2, telemetry.value(Counter.TRANSPORT_CHANNELS_OPENED));
        assertEquals(2, telemetry.value(Counter.TRANSPORT_CHANNELS_CLOSED));
        assertEquals(2, telemetry.value(Counter.TRANSPORT_OPS_COMPLETED));
        assertEquals(1, telemetry.value(Counter.TRANSPORT_OPS_FAILED));
        assertEquals(4096, telemetry.value(Counter.TRANSPORT_BYTES_WRITTEN));
        assertEquals(100, telemetry.value(Counter.TRANSPORT_BYTES_READ));
        assertEquals(1, telemetry.value(Counter.TRANSPORT_REMOTE_ACCESS_DENIED));
    }
}
