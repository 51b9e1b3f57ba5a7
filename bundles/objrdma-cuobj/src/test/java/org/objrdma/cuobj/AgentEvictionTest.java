package org.objrdma.cuobj;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.cuobj.CuObj.CUOBJ_PROTO_RDMA_DC_V1;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.ChannelInfo;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;
import org.objrdma.wire.AgentKeys;
import org.objrdma.wire.CuObjDescriptor;

/**
 * Issue 24, finding 12: every {@code bin/objrdma --protocol cuobj} run that exited left the server's kept connection
 * to its agent behind, in ERROR, in {@code rdma:channels} for good. Now a kept connection whose peer went away is
 * evicted (and counted): clients come and go, and the server's channel list (what {@code rdma:channels} prints:
 * {@code Transport.channels()}) ends empty. Clients here are real TCP agents: 100 in this JVM, each on its own
 * transport (its own listening socket and connection, closed as a process exit closes them), and a few real
 * processes killed outright.
 */
class AgentEvictionTest {
    private static final int SIZE = 4096;
    private static final long EVICTION_WAIT_MS = 30_000;

    private final byte[] key = AgentKeys.generate();
    private final Map<Counter, AtomicLong> counts = new EnumMap<>(Counter.class);
    private TcpTransport serverTransport;
    private CuObjServer server;
    private Arena arena;
    private RdmaBuffer buffer;

    private final Telemetry counting = new Telemetry() {
        @Override
        public void add(Counter counter, long delta) {
            counts.computeIfAbsent(counter, c -> new AtomicLong()).addAndGet(delta);
        }

        @Override
        public long value(Counter counter) {
            AtomicLong v = counts.get(counter);
            return v == null ? 0 : v.get();
        }

        @Override
        public Map<Counter, Long> snapshot() {
            Map<Counter, Long> m = new EnumMap<>(Counter.class);
            for (Counter c : Counter.values()) {
                m.put(c, value(c));
            }
            return m;
        }
    };

    @BeforeEach
    void start() throws Exception {
        serverTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        CuObjRDMATunable t = new CuObjRDMATunable();
        t.setAgentKey(key);
        t.setAllowAddresses(Patterns.LOOPBACK); // the client agents listen on loopback
        server = CuObjServer.builder().transport(serverTransport).telemetry(() -> counting)
                .address("127.0.0.1", 0).proto(CUOBJ_PROTO_RDMA_DC_V1).tunable(t).build();
        arena = Arena.ofShared();
        MemorySegment memory = arena.allocate(SIZE, 4096);
        memory.fill((byte) 0x3c);
        buffer = server.registerBuffer(memory, SIZE);
        assertEquals(0, server.allocateChannelId());
    }

    @AfterEach
    void stop() {
        server.close();
        serverTransport.close();
        arena.close();
    }

    /** The server's channels as {@code rdma:channels} lists them. */
    private List<ChannelInfo> channelRows() {
        return serverTransport.channels();
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + EVICTION_WAIT_MS * 1_000_000;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + EVICTION_WAIT_MS + " ms: " + what);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void aHundredClientsComeAndGoAndNoErrorRowIsLeft() throws Exception {
        for (int i = 0; i < 100; i++) {
            InProcessClient client = new InProcessClient(key, SIZE, 1);
            String descriptor = client.get(0, SIZE);
            int[] status = {-1};
            assertEquals(SIZE, server.handleGetObject("obj" + i, buffer,
                    CuObjDescriptor.parse(descriptor).value().remoteAddress(), SIZE, descriptor, 0, 0, status), "run " + i);
            assertEquals(0x3c, client.memory.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, SIZE - 1));
            client.close(); // as the process's exit would: its agent's sockets close
        }
        await("every kept connection evicted: " + channelRows(), () -> channelRows().isEmpty());
        assertEquals(0, server.agentConnectionCount());
        assertEquals(100, counting.value(Counter.CUOBJ_CONNECTIONS_EVICTED), "one eviction per client");
        assertEquals(0, counting.value(Counter.CUOBJ_ERRORS), "nothing failed on the way");
    }

    @Test
    void clientProcessesThatAreKilledLeaveNoRowBehind() throws Exception {
        for (int i = 0; i < 3; i++) {
            ClientPeer peer = new ClientPeer(key, SIZE, 1);
            String descriptor = peer.descriptor("GET", 0, SIZE, 0);
            int[] status = {-1};
            assertEquals(SIZE, server.handleGetObject("p" + i, buffer,
                    CuObjDescriptor.parse(descriptor).value().remoteAddress(), SIZE, descriptor, 0, 0, status));
            assertEquals(1, channelRows().stream().filter(c -> c.state() == ChannelState.CONNECTED).count());
            ProcessHandle.of(peer.pid()).ifPresent(ProcessHandle::destroyForcibly); // a crash, not a clean exit
            peer.close();
            await("the killed client's connection evicted: " + channelRows(), () -> channelRows().isEmpty());
        }
        assertEquals(3, counting.value(Counter.CUOBJ_CONNECTIONS_EVICTED));
        assertTrue(channelRows().stream().noneMatch(c -> c.state() == ChannelState.ERROR));
    }
}
