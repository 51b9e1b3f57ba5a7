package org.objrdma.cuobj;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.cuobj.CuObj.CUOBJ_PROTO_RDMA_DC_V1;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Transport;
import org.objrdma.wire.AgentKeys;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * The documented thread model: one channel per thread for transfers, registration and channel allocation from
 * any thread at the same time; several facade channels serving the same client channel share one connection.
 * Also the transport swap: buffers follow the bound transport.
 */
class CuObjConcurrencyTest {
    private static final int CHUNK = 64 << 10;
    private static final int ROUNDS = 40;

    private byte[] key;
    private TcpTransport serverTransport;
    private InProcessClient client;
    private CuObjServer server;
    private Arena arena;

    @BeforeEach
    void start() throws Exception {
        key = AgentKeys.generate();
        serverTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        client = new InProcessClient(key, 8L * CHUNK, 4);
        arena = Arena.ofShared();
        CuObjRDMATunable t = new CuObjRDMATunable();
        t.setAgentKey(key);
        t.setAllowAddresses(Patterns.LOOPBACK); // the client agents listen on loopback
        server = new CuObjServer(serverTransport, "127.0.0.1", 0, CUOBJ_PROTO_RDMA_DC_V1, t);
    }

    @AfterEach
    void stop() {
        server.close();
        client.close();
        serverTransport.close();
        arena.close();
    }

    /** Runs {@code body(i)} on {@code n} threads at once; rethrows the first failure. */
    private static void onThreads(int n, ThrowingIntConsumer body) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int index = i;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    go.await();
                    body.accept(index);
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        go.countDown();
        for (Thread t : threads) {
            t.join(60_000);
        }
        if (!failures.isEmpty()) {
            throw new AssertionError(failures.size() + " worker(s) failed; the first:", failures.peek());
        }
    }

    @FunctionalInterface
    interface ThrowingIntConsumer {
        void accept(int i) throws Exception;
    }

    @Test
    void fourThreadsOnTheirOwnChannelsAndLanesMoveTheirOwnBytes() throws Exception {
        onThreads(4, i -> {
            int ch = server.allocateChannelId();
            MemorySegment mine = arena.allocate(CHUNK, 4096);
            RdmaBuffer buf = server.registerBuffer(mine, CHUNK);
            long off = (long) i * CHUNK;
            for (int r = 0; r < ROUNDS; r++) {
                Patterns.fill(mine, 0, CHUNK, i * 1000L + r);
                long crc = Patterns.crc(mine, 0, CHUNK);
                assertEquals(CHUNK, server.handleGetObject("g" + i, buf, client.addr(off), CHUNK,
                        client.get(off, CHUNK, i), ch));
                assertEquals(crc, Patterns.crc(client.memory.segment(), off, CHUNK));
                mine.fill((byte) 0);
                assertEquals(CHUNK, server.handlePutObject("p" + i, buf, client.addr(off), CHUNK,
                        client.put(off, CHUNK, i), ch));
                assertEquals(crc, Patterns.crc(mine, 0, CHUNK));
            }
            server.deRegisterBuffer(buf);
            server.freeChannelId(ch);
        });
        assertEquals(4, server.agentConnectionCount(), "one connection per client lane");
    }

    @Test
    void channelsServingTheSameClientChannelShareOneConnection() throws Exception {
        String desc = client.get(0, 8L * CHUNK, 0);
        onThreads(4, i -> {
            int ch = server.allocateChannelId();
            MemorySegment mine = arena.allocate(CHUNK, 4096);
            Patterns.fill(mine, 0, CHUNK, 77 + i);
            long crc = Patterns.crc(mine, 0, CHUNK);
            RdmaBuffer buf = server.registerBuffer(mine, CHUNK);
            long off = (long) i * CHUNK;
            for (int r = 0; r < ROUNDS; r++) {
                assertEquals(CHUNK, server.handleGetObject("s" + i, buf, client.addr(off), CHUNK, desc, ch));
            }
            assertEquals(crc, Patterns.crc(client.memory.segment(), off, CHUNK));
        });
        assertEquals(1, server.agentConnectionCount());
        assertEquals(1, serverTransport.channelCount());
    }

    @Test
    void registrationAndAllocationRunConcurrentlyWithTransfers() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<String> moverFailure = new AtomicReference<>();
        String desc = client.get(0, CHUNK, 1);
        int moverChannel = server.allocateChannelId();
        RdmaBuffer moverBuffer = server.registerBuffer(arena.allocate(CHUNK, 4096), CHUNK);
        Thread mover = Thread.ofPlatform().start(() -> {
            int moved = 0;
            while (!stop.get()) {
                long r = server.handleGetObject("m", moverBuffer, client.addr(0), CHUNK, desc, moverChannel);
                if (r != CHUNK) {
                    moverFailure.set("transfer " + moved + " returned " + r);
                    return;
                }
                moved++;
            }
        });
        int before = serverTransport.regionCount();
        onThreads(6, i -> {
            for (int r = 0; r < 200; r++) {
                MemorySegment s = arena.allocate(4096, 4096);
                RdmaBuffer b = server.registerBuffer(s, 4096);
                assertNotNull(b);
                int ch = server.allocateChannelId();
                assertTrue(ch != CuObj.INVALID_CHANNEL_ID);
                RdmaBuffer view = server.getRDMABufferFromSgList(b, List.of(new CuObjScatterGatherEntryWithOffset(0, 512)));
                assertNotNull(view);
                server.putRDMABufferFromSgList(view);
                server.freeChannelId(ch);
                server.deRegisterBuffer(b);
            }
        });
        stop.set(true);
        mover.join(30_000);
        assertEquals(null, moverFailure.get(), "transfers kept working during the churn");
        assertEquals(before, serverTransport.regionCount(), "every churned registration was closed");
    }

    @Test
    void buffersFollowTheBoundTransportWhenItIsReplaced() throws Exception {
        TcpTransport second = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        try {
            AtomicReference<Transport> bound = new AtomicReference<>(serverTransport);
            CuObjRDMATunable t = new CuObjRDMATunable();
            t.setAgentKey(key);
            t.setAllowAddresses(Patterns.LOOPBACK); // the client agents listen on loopback
            try (CuObjServer swapping = CuObjServer.builder().transport(bound::get).tunable(t).build()) {
                int ch = swapping.allocateChannelId();
                MemorySegment mem = arena.allocate(CHUNK, 4096);
                Patterns.fill(mem, 0, CHUNK, 5);
                RdmaBuffer buf = swapping.registerBuffer(mem, CHUNK);
                int firstRegions = serverTransport.regionCount();
                assertEquals(CHUNK, swapping.handleGetObject("a", buf, client.addr(0), CHUNK, client.get(0, CHUNK, 2), ch));
                assertEquals(1, serverTransport.channelCount());

                bound.set(second); // an OSGi greedy rebind does exactly this to the supplier
                assertEquals(CHUNK, swapping.handleGetObject("b", buf, client.addr(0), CHUNK, client.get(0, CHUNK, 3), ch));
                assertEquals(firstRegions - 1, serverTransport.regionCount(), "the old registration was closed");
                assertEquals(1, second.regionCount());
                assertEquals(0, serverTransport.channelCount(), "connections on the old transport were dropped");
                assertEquals(1, second.channelCount());
                assertEquals(Patterns.crc(mem, 0, CHUNK), Patterns.crc(client.memory.segment(), 0, CHUNK));
            }
        } finally {
            second.close();
        }
    }
}
