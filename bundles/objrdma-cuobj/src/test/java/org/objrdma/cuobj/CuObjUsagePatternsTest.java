package org.objrdma.cuobj;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.cuobj.CuObj.CUOBJ_GET;
import static org.objrdma.cuobj.CuObj.CUOBJ_LOG_OP_GET;
import static org.objrdma.cuobj.CuObj.CUOBJ_LOG_PATH_DEBUG;
import static org.objrdma.cuobj.CuObj.CUOBJ_LOG_PATH_ERROR;
import static org.objrdma.cuobj.CuObj.CUOBJ_LOG_PATH_INFO;
import static org.objrdma.cuobj.CuObj.CUOBJ_PROTO_RDMA_DC_V1;
import static org.objrdma.cuobj.CuObj.CUOBJ_PUT;
import static org.objrdma.cuobj.CuObj.INVALID_CHANNEL_ID;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.wire.AgentKeys;
import org.objrdma.wire.CuObjDescriptor;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * Every usage pattern of the cuObjServer documentation (§1.9: basic GET, synchronous PUT, async with poll,
 * scatter-gather registration, registered buffer view, custom tuning, telemetry), end to end over the TCP
 * transport with the client in a second JVM: the descriptors come from the client process, the bytes are
 * checked by CRC32C on both sides. Plus 64 MiB both ways and a transfer above 1 GiB in chunks.
 */
class CuObjUsagePatternsTest {
    private static final long MIB = 1 << 20;

    private static byte[] key;
    private static TcpTransport serverTransport;
    private static ClientPeer client;

    private CuObjServer server;

    @BeforeAll
    static void startClientAndTransport() throws Exception {
        key = AgentKeys.generate();
        serverTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        client = new ClientPeer(key, 80 * MIB, 4);
    }

    /** Default tunables, the client's agent key, and the client's loopback agent allowed. */
    private static CuObjRDMATunable onLoopback() {
        CuObjRDMATunable t = new CuObjRDMATunable();
        t.setAgentKey(key);
        t.setAllowAddresses(Patterns.LOOPBACK);
        return t;
    }

    @AfterAll
    static void stopClientAndTransport() {
        client.close();
        serverTransport.close();
    }

    @AfterEach
    void closeServer() {
        if (server != null) {
            server.close();
        }
    }

    private static long remoteAddr(String descriptor) {
        return CuObjDescriptor.parse(descriptor).value().remoteAddress();
    }

    /** §1.9.1: construct, check, allocate a channel, allocate and register a buffer, GET, clean up. */
    @Test
    void basicGet() throws Exception {
        server = new CuObjServer(serverTransport, "127.0.0.1", 18515, CUOBJ_PROTO_RDMA_DC_V1, onLoopback());
        assertTrue(server.isConnected());
        int ch = server.allocateChannelId();
        assertEquals(0, ch, "the first allocation is channel 0");
        MemorySegment buf = server.allocHostBuffer(MIB);
        assertNotNull(buf);
        assertEquals(0, buf.address() % 4096, "page aligned");
        RdmaBuffer h = server.registerBuffer(buf, MIB);
        assertNotNull(h);
        Patterns.fill(buf, 0, MIB, 101);

        String desc = client.descriptor("GET", 0, MIB, 0);
        long r = server.handleGetObject("request-1", h, remoteAddr(desc), MIB, desc, ch);
        assertEquals(MIB, r);
        assertEquals(Patterns.crc(buf, 0, MIB), client.crc(0, MIB));

        server.deRegisterBuffer(h);
        server.freeHostBuffer(buf);
        server.freeChannelId(ch);
    }

    /** §1.9.2: a synchronous PUT; the bytes are in the registered memory when it returns. */
    @Test
    void synchronousPut() throws Exception {
        server = new CuObjServer(serverTransport, "127.0.0.1", 18515, CUOBJ_PROTO_RDMA_DC_V1, onLoopback());
        int ch = server.allocateChannelId();
        MemorySegment buf = server.allocHostBuffer(MIB);
        RdmaBuffer h = server.registerBuffer(buf, MIB);
        long clientCrc = client.fill(MIB, MIB, 202);
        String desc = client.descriptor("PUT", MIB, MIB, 0);
        int[] status = {-1};
        long r = server.handlePutObject("put-1", h, remoteAddr(desc), MIB, desc, ch, 0, status);
        assertEquals(MIB, r);
        assertEquals(WcStatus.SUCCESS.code(), status[0]);
        assertEquals(clientCrc, Patterns.crc(buf, 0, MIB));
    }

    /** §1.9.3: asynchronous GET and PUT return 0 and complete through poll on the same channel. */
    @Test
    void asyncWithPoll() throws Exception {
        server = new CuObjServer(serverTransport, "127.0.0.1", 18515, CUOBJ_PROTO_RDMA_DC_V1, onLoopback());
        int ch = server.allocateChannelId();
        MemorySegment buf = server.allocHostBuffer(16 * 64 * 1024);
        RdmaBuffer h = server.registerBuffer(buf, buf.byteSize());
        Patterns.fill(buf, 0, buf.byteSize(), 303);
        String desc = client.descriptor("GET", 0, buf.byteSize(), 1);
        long base = remoteAddr(desc);

        Object handle = 0x1;
        assertEquals(0, server.handleGetObject("async-1", h, base, 65536, desc, ch, 0, null, handle));
        CuObjAsyncEvent[] events = new CuObjAsyncEvent[16];
        int count;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while ((count = server.poll(events, 16, ch)) == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(1, count);
        assertEquals(handle, events[0].asyncHandle);
        assertEquals(WcStatus.SUCCESS.code(), events[0].status);

        // 16 outstanding at once, each 64 KiB at its own offset, handles are their indexes
        for (int i = 0; i < 16; i++) {
            long off = i * 65536L;
            assertEquals(0, server.handleGetObject("async-" + i, h, base + off, 65536, desc, ch, off, null, i));
        }
        Set<Object> done = new HashSet<>();
        deadline = System.nanoTime() + 10_000_000_000L;
        while (done.size() < 16 && System.nanoTime() < deadline) {
            int n = server.poll(events, 16, ch);
            assertTrue(n >= 0, "poll failed: " + n);
            for (int i = 0; i < n; i++) {
                assertEquals(0, events[i].status);
                assertTrue(done.add(events[i].asyncHandle), "each completion once");
            }
        }
        assertEquals(16, done.size());
        assertEquals(Patterns.crc(buf, 0, buf.byteSize()), client.crc(0, buf.byteSize()));

        // an asynchronous PUT
        long clientCrc = client.fill(2 * MIB, 65536, 304);
        String putDesc = client.descriptor("PUT", 2 * MIB, 65536, 1);
        assertEquals(0, server.handlePutObject("async-put", h, remoteAddr(putDesc), 65536, putDesc, ch, 0, null, "put"));
        CuObjPollResult r;
        deadline = System.nanoTime() + 10_000_000_000L;
        while ((r = server.pollEvents(16, ch)).result() == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertEquals(1, r.result());
        assertEquals("put", r.events().get(0).asyncHandle);
        assertEquals(clientCrc, Patterns.crc(buf, 0, 65536));
    }

    /** §1.9.4: two host buffers (4096 and 8192) registered as one scatter-gather buffer, one GET of 12288. */
    @Test
    void scatterGatherRegistration() throws Exception {
        server = new CuObjServer(serverTransport, "127.0.0.1", 18515, CUOBJ_PROTO_RDMA_DC_V1, onLoopback());
        int ch = server.allocateChannelId();
        MemorySegment b1 = server.allocHostBuffer(4096);
        MemorySegment b2 = server.allocHostBuffer(8192);
        Patterns.fill(b1, 0, 4096, 401);
        Patterns.fill(b2, 0, 8192, 402);
        RdmaBuffer sg = server.registerBuffer(List.of(new CuObjScatterGatherEntry(b1, 4096),
                new CuObjScatterGatherEntry(b2, 8192)));
        assertNotNull(sg);
        assertEquals(2, sg.entryCount());
        assertEquals(12288, sg.size());
        String desc = client.descriptor("GET", 3 * MIB, 12288, 0);
        assertEquals(12288, server.handleGetObject("sg-get", sg, remoteAddr(desc), 12288, desc, ch));
        assertEquals(Patterns.crc(b1, b2), client.crc(3 * MIB, 12288));

        // and back: a PUT scatters into both entries
        long clientCrc = client.fill(4 * MIB, 12288, 403);
        String put = client.descriptor("PUT", 4 * MIB, 12288, 0);
        assertEquals(12288, server.handlePutObject("sg-put", sg, remoteAddr(put), 12288, put, ch));
        assertEquals(clientCrc, Patterns.crc(b1, b2));
        server.deRegisterBuffer(sg);
    }

    /** §1.9.5: a view {{0, 4096}, {16384, 8192}} over a 1 MiB registered buffer, GET 12288, release the view. */
    @Test
    void registeredBufferView() throws Exception {
        server = new CuObjServer(serverTransport, "127.0.0.1", 18515, CUOBJ_PROTO_RDMA_DC_V1, onLoopback());
        int ch = server.allocateChannelId();
        MemorySegment base = server.allocHostBuffer(MIB);
        Patterns.fill(base, 0, MIB, 501);
        RdmaBuffer h = server.registerBuffer(base, MIB);
        RdmaBuffer view = server.getRDMABufferFromSgList(h, List.of(new CuObjScatterGatherEntryWithOffset(0, 4096),
                new CuObjScatterGatherEntryWithOffset(16384, 8192)));
        assertNotNull(view);
        assertTrue(view.isView());
        String desc = client.descriptor("GET", 5 * MIB, 12288, 0);
        assertEquals(12288, server.handleGetObject("view-get", view, remoteAddr(desc), 12288, desc, ch));
        assertEquals(Patterns.crc(base.asSlice(0, 4096), base.asSlice(16384, 8192)), client.crc(5 * MIB, 12288));
        server.putRDMABufferFromSgList(view);
        assertTrue(h.isActive(), "releasing a view leaves its base registered");
        server.deRegisterBuffer(h);
    }

    /** §1.9.6: the documented tuning example, with an IPv6 address. */
    @Test
    void customTuning() throws Exception {
        CuObjRDMATunable t = new CuObjRDMATunable();
        t.setNumDcis(256);
        t.setCqDepth(1024);
        t.setTimeout(20);
        t.setRetryCount(7);
        t.setDelayInterval(10000);
        t.setQPResetOnFailure(true);
        t.setMaxRdAtomic(16);
        t.setAllowAddresses(Patterns.LOOPBACK);
        t.setAgentKey(key);
        server = new CuObjServer(serverTransport, "::1", 18515, CUOBJ_PROTO_RDMA_DC_V1, t);
        assertTrue(server.isConnected());
        CuObjRDMATunableParam p = new CuObjRDMATunableParam();
        server.getConfigTunableParam(p);
        assertEquals(256, p.num_dcis);
        assertEquals(1024, p.cq_depth);
        assertEquals(20, p.timeout);
        assertEquals(7, p.retry_cnt);
        assertEquals(10000, p.delay_interval);
        assertTrue(p.qp_reset_on_failure);
        assertEquals(16, p.max_rd_atomic);
        assertEquals(0xffeeddccL, p.dc_key, "untouched tunables keep their defaults");
        assertEquals(96, p.traffic_class);

        List<Integer> ids = new ArrayList<>();
        for (int i = 0; i < 256; i++) {
            ids.add(server.allocateChannelId());
        }
        assertEquals(255, ids.get(255));
        assertEquals(INVALID_CHANNEL_ID, server.allocateChannelId());
        MemorySegment buf = server.allocHostBuffer(65536);
        Patterns.fill(buf, 0, 65536, 601);
        RdmaBuffer h = server.registerBuffer(buf, 65536);
        String desc = client.descriptor("GET", 6 * MIB, 65536, 2);
        assertEquals(65536, server.handleGetObject("tuned", h, remoteAddr(desc), 65536, desc,
                java.time.Duration.ofNanos(10000), 255));
        assertEquals(Patterns.crc(buf, 0, 65536), client.crc(6 * MIB, 65536));
    }

    /** §1.9.7: stream telemetry with every path flag, a server in a scope, shutdown, then close the stream. */
    @Test
    void telemetry(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("cuobj_server.log");
        PrintStream log = new PrintStream(Files.newOutputStream(file), true, StandardCharsets.UTF_8);
        CuObjServer.setupTelemetry(false, log);
        CuObjServer.setTelemFlags(CUOBJ_LOG_PATH_ERROR | CUOBJ_LOG_PATH_INFO | CUOBJ_LOG_PATH_DEBUG, CUOBJ_LOG_OP_GET);
        try {
            try (CuObjServer scoped = new CuObjServer(serverTransport, "127.0.0.1", 18515, CUOBJ_PROTO_RDMA_DC_V1, onLoopback())) {
                int ch = scoped.allocateChannelId();
                MemorySegment buf = scoped.allocHostBuffer(4096);
                RdmaBuffer h = scoped.registerBuffer(buf, 4096);
                String desc = client.descriptor("GET", 7 * MIB, 4096, 0);
                assertEquals(4096, scoped.handleGetObject("telemetry-get", h, remoteAddr(desc), 4096, desc, ch));
                assertEquals(-org.objrdma.wire.Errno.EIO,
                        scoped.handleGetObject("telemetry-bad", h, remoteAddr(desc), 4096, desc, ch + 1));
            }
        } finally {
            CuObjServer.shutdownTelemetry();
            CuObjServer.setTelemFlags(CUOBJ_LOG_PATH_ERROR, 0);
            log.close();
        }
        String text = Files.readString(file);
        assertTrue(text.contains(" cuobj INFO session started on 127.0.0.1:18515"), text);
        assertTrue(text.contains(" cuobj DEBUG handleGetObject key=telemetry-get size=4096"), text);
        assertTrue(text.contains(" cuobj OP GET key=telemetry-get bytes=4096"), text);
        assertTrue(text.contains(" cuobj ERROR handleGetObject key=telemetry-bad: -EIO: channel 1 is not allocated"), text);
        assertTrue(text.contains(" cuobj INFO server 127.0.0.1:18515 closed"), text);

        // after shutdownTelemetry, a new server writes to the default (SLF4J), not to the closed stream
        server = new CuObjServer(serverTransport, "127.0.0.1", 18515, CUOBJ_PROTO_RDMA_DC_V1, onLoopback());
        server.handleGetObject("after", null, 1, 1, "x", 0);
        assertEquals(text, Files.readString(file));
    }

    /** 64 MiB GET and PUT, checked by CRC32C in both JVMs. */
    @Test
    void sixtyFourMibBothWays() throws Exception {
        server = new CuObjServer(serverTransport, "127.0.0.1", 18515, CUOBJ_PROTO_RDMA_DC_V1, onLoopback());
        int ch = server.allocateChannelId();
        long size = 64 * MIB;
        MemorySegment buf = server.allocHostBuffer(size);
        RdmaBuffer h = server.registerBuffer(buf, size);
        Patterns.fill(buf, 0, size, 801);
        String get = client.descriptor("GET", 8 * MIB, size, 3);
        assertEquals(size, server.handleGetObject("big-get", h, remoteAddr(get), size, get, ch));
        assertEquals(Patterns.crc(buf, 0, size), client.crc(8 * MIB, size));

        long clientCrc = client.fill(8 * MIB, size, 802);
        String put = client.descriptor("PUT", 8 * MIB, size, 3);
        assertEquals(size, server.handlePutObject("big-put", h, remoteAddr(put), size, put, ch));
        assertEquals(clientCrc, Patterns.crc(buf, 0, size));
        assertNotEquals(0, clientCrc);
    }

    /** transferLarge: 1 GiB + 1 MiB each way in two chunks, against a client with its own 1 GiB+ memory. */
    @Test
    void aboveOneGibInChunks() throws Exception {
        long size = (1L << 30) + MIB;
        try (ClientPeer big = new ClientPeer(key, size, 1)) {
            server = new CuObjServer(serverTransport, "127.0.0.1", 18515, CUOBJ_PROTO_RDMA_DC_V1, onLoopback());
            int ch = server.allocateChannelId();
            MemorySegment buf = server.allocHostBuffer(size);
            RdmaBuffer h = server.registerBuffer(buf, size);
            Patterns.fill(buf, 0, size, 901);
            String get = big.descriptor("GET", 0, size, 0);
            assertEquals(-org.objrdma.wire.Errno.EIO,
                    server.handleGetObject("too-big", h, remoteAddr(get), size, get, ch), "one call is at most 1 GiB");
            assertEquals(size, server.transferLarge(CUOBJ_GET, "large-get", h, remoteAddr(get), size, get, ch, 0, null));
            assertEquals(Patterns.crc(buf, 0, size), big.crc(0, size));

            long clientCrc = big.fill(0, size, 902);
            String put = big.descriptor("PUT", 0, size, 0);
            assertEquals(size, server.transferLarge(CUOBJ_PUT, "large-put", h, remoteAddr(put), size, put, ch, 0, null));
            assertEquals(clientCrc, Patterns.crc(buf, 0, size));
            server.deRegisterBuffer(h);
            server.freeHostBuffer(buf);
        }
    }
}
