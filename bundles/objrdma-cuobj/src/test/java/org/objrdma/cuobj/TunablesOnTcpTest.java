package org.objrdma.cuobj;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.cuobj.CuObj.CUOBJ_PROTO_RDMA_DC_V1;

import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.cuobj.internal.TcpTunables;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;
import org.objrdma.wire.AgentKeys;
import org.objrdma.wire.CuObjDescriptor;
import org.objrdma.wire.Errno;

/**
 * {@code timeout} and {@code retry_cnt} bound the dial of a client agent over TCP (on main they changed nothing and
 * the dial waited a fixed 10 s); the tunables without a TCP counterpart are named as ignored.
 */
class TunablesOnTcpTest {

    @Test
    void timeoutAndRetryCountGiveTheDialTimeout() {
        CuObjRDMATunable t = new CuObjRDMATunable(); // timeout 16, retry_cnt 7: 8 × 4.096 µs × 2^16
        assertEquals(Duration.ofNanos(8L * 4096 * 65536), TcpTunables.dialTimeout(t));
        t.setTimeout(12);
        t.setRetryCount(0);
        assertEquals(Duration.ofNanos(4096L * 4096), TcpTunables.dialTimeout(t));
        t.setTimeout(31);
        t.setRetryCount(7);
        assertEquals(Duration.ofMillis(t.getTransferTimeoutMs()), TcpTunables.dialTimeout(t), "capped by the transfer");
        t.setTimeout(0);
        assertEquals(Duration.ofMillis(t.getTransferTimeoutMs()), TcpTunables.dialTimeout(t), "0 is infinite in verbs");
        t.setTimeout(1);
        t.setRetryCount(0);
        assertEquals(Duration.ofMillis(1), TcpTunables.dialTimeout(t), "at least a millisecond");
        List<String> ignored = TcpTunables.ignored(new CuObjRDMATunable());
        assertTrue(ignored.contains("service_level=0") && ignored.contains("traffic_class=96")
                && ignored.contains("delay_mode=CUOBJ_DELAY_BATCH") && ignored.size() == 10, ignored.toString());
    }

    @Test
    void aShortTimeoutEndsTheDialOfAnAgentThatNeverAnswers() throws Exception {
        byte[] key = AgentKeys.generate();
        List<Socket> held = new ArrayList<>();
        try (TcpTransport transport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
             ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             Arena arena = Arena.ofShared()) {
            Thread acceptor = Thread.ofVirtual().start(() -> {
                try {
                    while (true) {
                        held.add(silent.accept()); // accepts, then never says a word
                    }
                } catch (java.io.IOException closed) {
                    // the test ended
                }
            });
            CuObjRDMATunable t = new CuObjRDMATunable();
            t.setAgentKey(key);
            t.setAllowAddresses(Patterns.LOOPBACK);
            t.setTimeout(14); // 67 ms
            t.setRetryCount(0);
            t.setDialFailureDelayMs(100); // the failed-dial pad (issue 24) at its minimum, so the tunables show
            try (CuObjServer server = new CuObjServer(transport, "127.0.0.1", 0, CUOBJ_PROTO_RDMA_DC_V1, t)) {
                int ch = server.allocateChannelId();
                RdmaBuffer buf = server.registerBuffer(arena.allocate(4096, 4096), 4096);
                String desc = CuObjDescriptor.forTcpAgent(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                        silent.getLocalPort()), 1, 0x10000, 4096, 7).format();
                int[] status = {-1};
                long started = System.nanoTime();
                long r = server.handleGetObject("silent", buf, 0x10000, 4096, desc, ch, 0, status);
                long tookMs = (System.nanoTime() - started) / 1_000_000;
                assertEquals(-Errno.EIO, r);
                assertEquals(WcStatus.RETRY_EXC_ERR.code(), status[0]);
                // the fixed dial of main waits 10 s; 67 ms (padded to 100) plus scheduling on a loaded machine stays
                // far below, and the pad holds the answer at least that long
                assertTrue(tookMs >= 100 && tookMs < 5_000, "the dial took " + tookMs + " ms");
            }
            silent.close();
            acceptor.join();
        } finally {
            for (Socket s : held) {
                s.close();
            }
        }
    }
}
