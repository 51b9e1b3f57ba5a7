package org.objrdma.transport.tcp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
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
 * another address connects and the flooded transport's own dials work.
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

    @Test
    void silentSocketFloodFromOneAddressStopsNoOneElse() throws Exception {
        int perAddress = 16;
        int maxConnections = 128;
        TcpTransport server = transport(Map.of("max.pending.handshakes", 64,
                "max.pending.handshakes.per.address", perAddress, "max.connections", maxConnections,
                "handshake.timeout.ms", 30_000L));
        long fdsBefore = openDescriptors();
        List<SocketChannel> flood = new ArrayList<>();
        try {
            for (int i = 0; i < 1100; i++) {
                SocketChannel sc = SocketChannel.open();
                flood.add(sc);
                sc.setOption(StandardSocketOptions.SO_LINGER, 0);
                sc.bind(new InetSocketAddress("127.0.0.2", 0)); // the flooding host
                sc.connect(server.agentAddress());
            }
            awaitTrue(() -> server.agent().turnedAwayCount() >= 1100 - perAddress, "the flood is turned away");
            assertTrue(server.agent().pendingHandshakes() <= perAddress,
                    "one address holds at most its share: " + server.agent().pendingHandshakes());
            assertTrue(server.agent().inboundHeld() <= maxConnections);
            long serverSide = openDescriptors() - fdsBefore - flood.size();
            assertTrue(serverSide <= perAddress + 32, "descriptors the flood costs the server: " + serverSide);

            // a client on another address connects, and the flooded transport's own dial still works
            TcpTransport client = transport(Map.of());
            Channel lane = later(server.openChannel(ChannelOptions.DEFAULT));
            Channel mine = later(client.openChannel(ChannelOptions.DEFAULT));
            mine.connect(lane.localEndpoint());
            assertEquals(ChannelState.CONNECTED, lane.state());
            Channel outbound = later(server.openChannel(ChannelOptions.DEFAULT));
            Channel target = later(client.openChannel(ChannelOptions.DEFAULT));
            outbound.connect(target.localEndpoint());
            assertEquals(ChannelState.CONNECTED, target.state());
        } finally {
            for (SocketChannel sc : flood) {
                TcpTransport.closeQuietly(sc);
            }
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
