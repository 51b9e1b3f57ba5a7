package org.objrdma.verbs.internal.transport;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.verbs.internal.ComponentFixture;
import org.objrdma.verbs.testsupport.RdmaCoreTools;

/**
 * The verbs transport against rdma-core's unmodified {@code ibv_rc_pingpong} in another process, on the
 * software device, in both roles. This test speaks pingpong's own QP-info exchange over its TCP socket: each
 * side sends {@code "LLLL:QQQQQQ:PPPPPP:<32 hex GID>"} plus a NUL (52 bytes), then the client confirms with
 * {@code "done"} plus a NUL. With {@code -c} pingpong's sender zeroes the first byte of every page of its 0x7b
 * buffer, and its server checks those bytes of what it received: both directions are byte-checked.
 * pingpong runs with {@code -g 0}, as it must against a peer that names a GID: given a peer GID it connects with
 * a GRH whose source index is its {@code -g} (default -1, i.e. 255), which the device refuses as the kernel does.
 */
class RcPingpongInteropTest {
    static final int SIZE = 4096 * 2;
    static final int ITERS = 200;
    static final int RECVS = 16;
    static final int MSG = "0000:000000:000000:00000000000000000000000000000000".length() + 1;
    static final Pattern COUNT = Pattern.compile("(\\d+) iters in");

    ComponentFixture fixture;
    VerbsTransport transport;
    Arena arena;
    Channel ch;
    MemoryRegion sendBuf;
    MemoryRegion recvBuf;
    String pingpong;

    @BeforeEach
    void setUp() throws Exception {
        pingpong = RdmaCoreTools.require("ibv_rc_pingpong", "ibverbs-utils");
        fixture = ComponentFixture.software();
        transport = (VerbsTransport) fixture.transport();
        arena = Arena.ofShared();
        ch = transport.openChannel(ChannelOptions.DEFAULT);
        sendBuf = transport.register(arena.allocate(SIZE, 4096), EnumSet.of(Access.LOCAL_WRITE));
        recvBuf = transport.register(arena.allocate((long) SIZE * RECVS, 4096), EnumSet.of(Access.LOCAL_WRITE));
        // what pingpong -c sends: 0x7b everywhere, 0 at each page start
        MemorySegment s = sendBuf.segment();
        s.fill((byte) 0x7b);
        for (int i = 0; i < SIZE; i += 4096) {
            s.set(JAVA_BYTE, i, (byte) 0);
        }
    }

    @AfterEach
    void tearDown() {
        fixture.close();
        arena.close();
    }

    static byte[] wire(EndpointInfo.Verbs e) {
        String gid = e.gid().toHex();
        String s = String.format("%04x:%06x:%06x:%s", e.lid(), e.qpn(), e.psn(), gid);
        byte[] out = new byte[MSG];
        System.arraycopy(s.getBytes(StandardCharsets.US_ASCII), 0, out, 0, s.length());
        return out;
    }

    static EndpointInfo.Verbs parse(byte[] msg) {
        String s = new String(msg, 0, MSG - 1, StandardCharsets.US_ASCII);
        String[] f = s.split(":");
        byte[] gid = java.util.HexFormat.of().parseHex(f[3]);
        return new EndpointInfo.Verbs(Integer.parseInt(f[1], 16), Integer.parseInt(f[2], 16), Gid.fromBytes(gid),
                Integer.parseInt(f[0], 16), 1, Mtu.MTU_1024);
    }

    void postRecv(int slot) throws Exception {
        ch.post(WorkRequest.recv(1000 + slot, new ScatterGatherEntry(recvBuf, (long) slot * SIZE, SIZE)));
    }

    /** The next completion; a received message is checked byte for byte and its slot posted again. */
    Completion next() throws Exception {
        Completion[] out = new Completion[1];
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (ch.poll(out) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion from the pingpong peer in 20 s");
            }
            Thread.onSpinWait();
        }
        Completion c = out[0];
        assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
        if (c.opcode() == WcOpcode.RECV) {
            int slot = (int) (c.wrId() - 1000);
            assertEquals(SIZE, c.byteLength());
            MemorySegment got = recvBuf.segment().asSlice((long) slot * SIZE, SIZE);
            assertEquals(-1, got.mismatch(sendBuf.segment()), "bytes from ibv_rc_pingpong differ");
            got.fill((byte) 0x55);
            postRecv(slot);
        }
        return c;
    }

    void send() throws Exception {
        ch.post(WorkRequest.send(7, ScatterGatherEntry.of(sendBuf)));
    }

    /** Counts completions until {@code recvs} receives and {@code sends} sends are in, replying as pingpong does. */
    void pingpong(boolean javaSendsFirst) throws Exception {
        int sent = 0;
        int received = 0;
        if (javaSendsFirst) {
            send();
            sent++;
        }
        int sendsDone = 0;
        while (received < ITERS || sendsDone < ITERS) {
            Completion c = next();
            if (c.opcode() == WcOpcode.RECV) {
                received++;
                if (sent < ITERS) {
                    send();
                    sent++;
                }
            } else {
                assertEquals(WcOpcode.SEND, c.opcode());
                sendsDone++;
            }
        }
    }

    static void assertPingpongReported(RdmaCoreTools.Run run, String out) {
        assertEquals(0, run.exitValue(), out);
        Matcher m = COUNT.matcher(out);
        assertTrue(m.find(), out);
        assertEquals(ITERS, Integer.parseInt(m.group(1)), out);
        assertFalse(out.contains("invalid data"), out);
    }

    @Test
    void javaClientAgainstRcPingpongServer() throws Exception {
        int port = RdmaCoreTools.freePort();
        RdmaCoreTools.Run server = RdmaCoreTools.start(pingpong, "-d", "softrc0", "-g", "0", "-p",
                Integer.toString(port), "-s", Integer.toString(SIZE), "-n", Integer.toString(ITERS), "-c");
        try {
            for (int i = 0; i < RECVS; i++) {
                postRecv(i);
            }
            EndpointInfo.Verbs peer;
            try (Socket s = connectWithRetry(port)) {
                EndpointInfo.Verbs me = (EndpointInfo.Verbs) ch.localEndpoint();
                OutputStream out = s.getOutputStream();
                out.write(wire(me));
                byte[] msg = new byte[MSG];
                new DataInputStream(s.getInputStream()).readFully(msg);
                peer = parse(msg);
                assertNotEquals(me.qpn(), peer.qpn(), "the peer QP must be pingpong's own, not a twin of ours");
                out.write("done\0".getBytes(StandardCharsets.US_ASCII));
                ch.connect(peer);
            }
            pingpong(true);
            String out = server.finish(30);
            assertPingpongReported(server, out);
            assertTrue(out.contains(String.format("QPN 0x%06x", peer.qpn())), out);
        } finally {
            server.kill();
        }
    }

    @Test
    void rcPingpongClientAgainstJavaServer() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            for (int i = 0; i < RECVS; i++) {
                postRecv(i);
            }
            RdmaCoreTools.Run client = RdmaCoreTools.start(pingpong, "-d", "softrc0", "-g", "0", "-p",
                    Integer.toString(listener.getLocalPort()), "-s", Integer.toString(SIZE), "-n",
                    Integer.toString(ITERS), "-c", "127.0.0.1");
            try {
                listener.setSoTimeout(20_000);
                EndpointInfo.Verbs peer;
                try (Socket s = listener.accept()) {
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    byte[] msg = new byte[MSG];
                    in.readFully(msg);
                    peer = parse(msg);
                    EndpointInfo.Verbs me = (EndpointInfo.Verbs) ch.localEndpoint();
                    assertNotEquals(me.qpn(), peer.qpn());
                    ch.connect(peer);  // before answering: the client sends as soon as it has our address
                    s.getOutputStream().write(wire(me));
                    byte[] done = new byte[5];
                    in.readFully(done);
                    assertEquals("done\0", new String(done, StandardCharsets.US_ASCII));
                }
                pingpong(false);
                String out = client.finish(30);
                assertPingpongReported(client, out);
                assertTrue(out.contains(String.format("QPN 0x%06x", peer.qpn())), out);
            } finally {
                client.kill();
            }
        }
    }

    static Socket connectWithRetry(int port) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (true) {
            Socket s = new Socket();
            try {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
                return s;
            } catch (IOException e) {
                s.close();
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }
}
