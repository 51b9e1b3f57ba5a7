package org.objrdma.cuobj;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.cuobj.CuObj.CUOBJ_PROTO_RDMA_DC_V1;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;
import org.objrdma.wire.AgentKeys;
import org.objrdma.wire.CuObjDescriptor;
import org.objrdma.wire.Errno;

/**
 * Issue 24, finding 7: a descriptor naming a port let a client scan the server's network (a closed port failed in
 * 0.0 s, an open one that does not speak the protocol after 2.15 s). Over real sockets, a closed port, an open one
 * that never speaks (a plain {@link ServerSocket}) and one that hangs up at once now answer alike: {@code -EIO},
 * RETRY_EXC_ERR, after at least {@code dial.failure.delay.ms} and within a margin of each other.
 */
class FacadeDialPacingTest {
    private static final long DELAY_MS = 1_200;
    /** Scheduling noise on a shared 2-core machine; far below what the ports differed by before. */
    private static final long MARGIN_MS = 700;

    private final byte[] key = AgentKeys.generate();
    private TcpTransport serverTransport;
    private CuObjServer server;
    private Arena arena;
    private RdmaBuffer buffer;
    private ServerSocket silent;
    private ServerSocket hangsUp;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        serverTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        CuObjRDMATunable t = new CuObjRDMATunable();
        t.setAgentKey(key);
        t.setAllowAddresses(Patterns.LOOPBACK);
        t.setDialFailureDelayMs(DELAY_MS);
        server = new CuObjServer(serverTransport, "127.0.0.1", 0, CUOBJ_PROTO_RDMA_DC_V1, t);
        assertTrue(server.isConnected());
        arena = Arena.ofShared();
        buffer = server.registerBuffer(arena.allocate(4096, 4096), 4096);
        assertEquals(0, server.allocateChannelId());
        silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        hangsUp = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            try {
                while (true) {
                    accepted.add(silent.accept()); // never reads or writes
                }
            } catch (IOException closed) {
                // the test ended
            }
        });
        Thread.ofVirtual().start(() -> {
            try {
                while (true) {
                    hangsUp.accept().close();
                }
            } catch (IOException closed) {
                // the test ended
            }
        });
    }

    @AfterEach
    void stop() throws IOException {
        silent.close();
        hangsUp.close();
        for (Socket s : accepted) {
            s.close();
        }
        server.close();
        serverTransport.close();
        arena.close();
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private record Answer(long result, int status, long millis) {
    }

    private Answer get(int port) {
        String d = CuObjDescriptor.forTcpAgent(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1,
                0x10000, 4096, 1).format();
        int[] status = {-1};
        long start = System.nanoTime();
        long r = server.handleGetObject("scan", buffer, 0x10000, 4096, d, 0, 0, status);
        return new Answer(r, status[0], (System.nanoTime() - start) / 1_000_000);
    }

    @Test
    void closedSilentAndHangingUpPortsAnswerAlikeAfterTheDelay() throws Exception {
        List<Answer> answers = new ArrayList<>();
        for (int round = 0; round < 2; round++) {
            answers.add(get(closedPort()));
            answers.add(get(silent.getLocalPort()));
            answers.add(get(hangsUp.getLocalPort()));
        }
        for (Answer a : answers) {
            assertEquals(-Errno.EIO, a.result(), answers.toString());
            assertEquals(answers.get(0).status(), a.status(), "one status for every port: " + answers);
            assertTrue(a.millis() >= DELAY_MS, "no failed dial answers before the delay: " + answers);
            assertTrue(a.millis() < DELAY_MS + MARGIN_MS, "the dial is cut off at the delay: " + answers);
        }
        assertTrue(!accepted.isEmpty(), "the silent port was really dialed");
        assertEquals(0, server.agentConnectionCount(), "a failed dial keeps nothing");
    }
}
