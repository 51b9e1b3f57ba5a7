package org.objrdma.transport.tcp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.EndpointInfo;

/**
 * Findings 3 and 4 of issue 12 through the real transport: what a peer can make the transport hold is bounded.
 * A peer that floods zero-length requests and never reads meets back-pressure and is then cut; a flood of
 * silent sockets from one address costs a bounded number of descriptors, and while it lasts a client from
 * another address connects and the flooded transport's own dials work (the flood from this JVM and from a
 * second one, {@link FloodProcess}).
 */
class PeerLimitsTest {

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() {
        for (int i = resources.size() - 1; i >= 0; i--) {
            TcpTransport.closeQuietly(resources.get(i));
        }
        resources.clear();
    }

    private <T extends AutoCloseable> T later(T t) {
        resources.add(t);
        return t;
    }

    private TcpTransport transport(Map<String, Object> overrides) throws IOException {
        return later(TcpTransport.start(TcpSettings.from(TcpSettings.configWith(overrides), null),
                () -> Telemetry.NOOP));
    }

    @Test
    void peerThatNeverReadsIsBackPressuredThenCut() throws Exception {
        int frames = 64;
        TcpTransport server = transport(Map.of("writer.queue.frames", frames, "keepalive.interval.ms", 100L,
                "keepalive.timeout.ms", 1000L));
        Channel lane = later(server.openChannel(ChannelOptions.DEFAULT));
        EndpointInfo.Tcp ep = (EndpointInfo.Tcp) lane.localEndpoint();
        byte[] code = new byte[1];
        RawPeer peer = later(RawPeer.dial(ep, ep.key(), RawPeer.someone(), code));
        assertEquals(Wire.REPLY_OK, code[0]);

        // zero-length READs and WRITEs: each costs the server an acknowledgement; we never read one
        CompletableFuture<Long> sent = CompletableFuture.supplyAsync(() -> {
            ByteBuffer batch = ByteBuffer.allocate(Wire.HEADER_BYTES * 256);
            long n = 0;
            try {
                while (n < 3_000_000) {
                    batch.clear();
                    ByteBuffer h = ByteBuffer.allocate(Wire.HEADER_BYTES);
                    for (int i = 0; i < 256; i++, n++) {
                        Wire.header(h, Wire.REQUEST, (n & 1) == 0 ? 4 : 0, 0, 0, n + 1, 0, 0, 0, 0);
                        batch.put(h);
                    }
                    MemoryAgent.writeFully(peer.socket, batch.flip());
                }
                return -n; // never cut: the bug
            } catch (IOException e) {
                return n; // the server cut us
            }
        });
        long requests = sent.get(60, TimeUnit.SECONDS);
        assertTrue(requests > 0, "the server must cut a peer that never reads (it sent all " + -requests + ")");
        assertTrue(server.owedFramesHighWater() <= frames,
                "frames queued for the peer stayed within writer.queue.frames: " + server.owedFramesHighWater());
        awaitTrue(() -> lane.state() == ChannelState.ERROR && server.connectionCount() == 0, "cut and flushed");
    }

    private static final int FLOOD = 1100;
    private static final int PER_ADDRESS = 16;
    private static final int MAX_CONNECTIONS = 128;

    /** A transport whose handshake bounds the flood tests check. */
    private TcpTransport floodableServer() throws IOException {
        return transport(Map.of("max.pending.handshakes", 64, "max.pending.handshakes.per.address", PER_ADDRESS,
                "max.connections", MAX_CONNECTIONS, "handshake.timeout.ms", 30_000L));
    }

    /**
     * While the flood holds its sockets: it is turned away beyond one address's share, the server's own
     * descriptors grew by at most that share (plus a margin) — {@code floodDescriptorsHere} are the flood's own
     * ends when it runs in this JVM — a client from another address connects, and the server's dial works.
     */
    private void assertTheFloodStopsNoOneElse(TcpTransport server, long fdsBefore, int floodDescriptorsHere)
            throws Exception {
        awaitTrue(() -> server.agent().turnedAwayCount() >= FLOOD - PER_ADDRESS, "the flood is turned away");
        assertTrue(server.agent().pendingHandshakes() <= PER_ADDRESS,
                "one address holds at most its share: " + server.agent().pendingHandshakes());
        assertTrue(server.agent().inboundHeld() <= MAX_CONNECTIONS);
        long serverSide = openDescriptors() - fdsBefore - floodDescriptorsHere;
        assertTrue(serverSide <= PER_ADDRESS + 32, "descriptors the flood costs the server: " + serverSide);

        TcpTransport client = transport(Map.of());
        Channel lane = later(server.openChannel(ChannelOptions.DEFAULT));
        Channel mine = later(client.openChannel(ChannelOptions.DEFAULT));
        mine.connect(lane.localEndpoint());
        assertEquals(ChannelState.CONNECTED, lane.state());
        Channel outbound = later(server.openChannel(ChannelOptions.DEFAULT));
        Channel target = later(client.openChannel(ChannelOptions.DEFAULT));
        outbound.connect(target.localEndpoint());
        assertEquals(ChannelState.CONNECTED, target.state());
    }

    @Test
    void silentSocketFloodFromOneAddressStopsNoOneElse() throws Exception {
        TcpTransport server = floodableServer();
        long fdsBefore = openDescriptors();
        List<SocketChannel> flood = new ArrayList<>();
        try {
            for (int i = 0; i < FLOOD; i++) {
                SocketChannel sc = SocketChannel.open();
                flood.add(sc);
                sc.setOption(StandardSocketOptions.SO_LINGER, 0);
                sc.bind(new InetSocketAddress("127.0.0.2", 0)); // the flooding host
                sc.connect(server.agentAddress());
            }
            assertTheFloodStopsNoOneElse(server, fdsBefore, flood.size());
        } finally {
            for (SocketChannel sc : flood) {
                TcpTransport.closeQuietly(sc);
            }
        }
        awaitTrue(() -> server.agent().pendingHandshakes() == 0, "the flood's slots come back");
    }

    /**
     * The same flood from a second JVM ({@link FloodProcess}), as the attack comes from another host's descriptor
     * table: this JVM's descriptor count is then the server's alone, nothing subtracted.
     */
    @Test
    void silentSocketFloodFromAnotherProcessCostsTheServerOnlyItsShare() throws Exception {
        TcpTransport server = floodableServer();
        long fdsBefore = openDescriptors();
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Process flooder = new ProcessBuilder(java, "-Xmx64m", "-cp", classpath, FloodProcess.class.getName(),
                server.agentAddress().getAddress().getHostAddress(), Integer.toString(server.agentAddress().getPort()),
                Integer.toString(FLOOD), "127.0.0.2").redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(flooder.getInputStream(),
                    StandardCharsets.UTF_8));
            assertEquals("connected " + FLOOD, out.readLine(), "the flooder opened every connection");
            assertTheFloodStopsNoOneElse(server, fdsBefore, 0);
            flooder.getOutputStream().close(); // the flooder lets go and exits
            assertTrue(flooder.waitFor(30, TimeUnit.SECONDS), "the flooder exited");
            assertEquals(0, flooder.exitValue());
        } finally {
            flooder.destroyForcibly();
            flooder.waitFor(30, TimeUnit.SECONDS);
        }
        awaitTrue(() -> server.agent().pendingHandshakes() == 0, "the flood's slots come back");
    }

    private static long openDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void awaitTrue(Condition c, String what) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!c.holds()) {
            if (System.nanoTime() > deadline) {
                fail("not within 30 s: " + what);
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
    }
}
