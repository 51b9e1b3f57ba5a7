package org.objrdma.verbs.internal.transport;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
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
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.verbs.internal.ComponentFixture;
import org.objrdma.verbs.internal.ffi.QpState;
import org.objrdma.verbs.testsupport.SoftVerbs;

/**
 * The verbs RC transport end to end on the software device: two connected channels of one transport,
 * bytes verified, every error path, the batch API, deferred completions, and the close order.
 */
class VerbsTransportTest {
    static final int MIB = 1 << 20;
    static final Duration WAIT = Duration.ofSeconds(10);

    ComponentFixture fixture;
    VerbsTransport transport;
    Arena arena;
    Channel a;
    Channel b;

    @BeforeEach
    void setUp() throws Exception {
        fixture = ComponentFixture.software();
        transport = (VerbsTransport) fixture.transport();
        arena = Arena.ofShared();
        a = transport.openChannel(ChannelOptions.DEFAULT);
        b = transport.openChannel(ChannelOptions.DEFAULT);
    }

    @AfterEach
    void tearDown() {
        SoftVerbs.setDelayMicros(0);
        SoftVerbs.setDeferred(false);
        fixture.close();
        arena.close();
    }

    void connect() throws TransportException {
        a.connect(b.localEndpoint());
        b.connect(a.localEndpoint());
    }

    MemoryRegion region(long size, Access... access) throws TransportException {
        return transport.register(arena.allocate(size, 4096), EnumSet.copyOf(List.of(access)));
    }

    static Completion pollOne(Channel ch) {
        Completion[] out = new Completion[1];
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (ch.poll(out) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion on " + ch + " within " + WAIT);
            }
            Thread.onSpinWait();
        }
        return out[0];
    }

    static void fillPattern(MemorySegment s, int seed) {
        long i = 0;
        for (; i + 8 <= s.byteSize(); i += 8) {
            s.set(JAVA_LONG, i, i * 0x9E3779B97F4A7C15L + seed);
        }
        for (; i < s.byteSize(); i++) {
            s.set(JAVA_BYTE, i, (byte) (i + seed));
        }
    }

    // ---- endpoints ----------------------------------------------------------------------------------------

    @Test
    void endpointsCarryQpnRandomPsnGidLidAndMtu() {
        EndpointInfo.Verbs ea = (EndpointInfo.Verbs) a.localEndpoint();
        EndpointInfo.Verbs eb = (EndpointInfo.Verbs) b.localEndpoint();
        assertTrue(ea.qpn() > 0 && eb.qpn() > 0 && ea.qpn() != eb.qpn());
        assertEquals(1, ea.lid());
        assertEquals(1, ea.port());
        assertEquals("fe800000000000000002c90300abcdef", ea.gid().toHex());
        assertEquals(4096, ea.mtu().bytes());
        // 24-bit PSNs drawn at random: 20 channels all starting at the same PSN would be a broken generator
        java.util.Set<Integer> psns = new java.util.HashSet<>();
        psns.add(ea.psn());
        psns.add(eb.psn());
        assertTrue(psns.size() == 2 || ea.psn() == eb.psn());
        for (int i = 0; i < 18; i++) {
            try (Channel c = transport.openChannel(ChannelOptions.DEFAULT)) {
                psns.add(((EndpointInfo.Verbs) c.localEndpoint()).psn());
            } catch (TransportException e) {
                throw new AssertionError(e);
            }
        }
        assertTrue(psns.size() > 10, "PSNs " + psns);
        assertEquals(ChannelState.INIT, a.state());
        assertEquals("verbs:softrc0", a.transportName());
    }

    // ---- the data path ----------------------------------------------------------------------------------

    @Test
    void oneMebibyteWriteArrivesIntact() throws Exception {
        connect();
        MemoryRegion src = region(MIB, Access.LOCAL_WRITE);
        MemoryRegion dst = region(MIB, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        fillPattern(src.segment(), 1);
        a.post(WorkRequest.write(11, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())));
        Completion c = pollOne(a);
        assertEquals(Completion.success(11, WcOpcode.RDMA_WRITE, MIB), c);
        assertEquals(-1, src.segment().mismatch(dst.segment()));
        assertEquals(ChannelState.CONNECTED, a.state());
    }

    @Test
    void oneMebibyteReadArrivesIntact() throws Exception {
        connect();
        MemoryRegion remote = region(MIB, Access.LOCAL_WRITE, Access.REMOTE_READ);
        MemoryRegion local = region(MIB, Access.LOCAL_WRITE);
        fillPattern(remote.segment(), 2);
        b.post(WorkRequest.read(12, ScatterGatherEntry.of(local), new RemoteRegion(remote.address(), remote.length(), remote.rkey())));
        assertEquals(Completion.success(12, WcOpcode.RDMA_READ, MIB), pollOne(b));
        assertEquals(-1, remote.segment().mismatch(local.segment()));
    }

    @Test
    void writeWithImmediateCompletesTheRemoteReceiveWithTheImmediate() throws Exception {
        connect();
        MemoryRegion src = region(4096, Access.LOCAL_WRITE);
        MemoryRegion dst = region(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        fillPattern(src.segment(), 3);
        b.post(WorkRequest.recv(77));
        a.post(WorkRequest.writeWithImm(13, ScatterGatherEntry.of(src), dst.address(), dst.rkey(), 0xCAFEBABE));
        assertEquals(Completion.success(13, WcOpcode.RDMA_WRITE, 4096), pollOne(a));
        Completion r = pollOne(b);
        assertEquals(77, r.wrId());
        assertEquals(WcStatus.SUCCESS, r.status());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, r.opcode());
        assertTrue(r.hasImmediate());
        assertEquals(0xCAFEBABE, r.immediate());
        assertEquals(4096, r.byteLength());
        assertEquals(-1, src.segment().mismatch(dst.segment()));
    }

    @Test
    void sendLandsInThePostedReceive() throws Exception {
        MemoryRegion inbox = region(4096, Access.LOCAL_WRITE);
        b.post(WorkRequest.recv(5, ScatterGatherEntry.of(inbox))); // receives may be posted before connecting
        connect();
        MemoryRegion msg = region(100, Access.LOCAL_WRITE);
        fillPattern(msg.segment(), 4);
        a.post(WorkRequest.send(6, new ScatterGatherEntry(msg, 0, 100)));
        assertEquals(Completion.success(6, WcOpcode.SEND, 100), pollOne(a));
        Completion r = pollOne(b);
        assertEquals(new Completion(5, WcStatus.SUCCESS, WcOpcode.RECV, 100, false, 0, 0), r);
        assertEquals(-1, msg.segment().mismatch(inbox.segment().asSlice(0, 100)));
        // SEND_WITH_IMM carries its immediate too
        b.post(WorkRequest.recv(7, ScatterGatherEntry.of(inbox)));
        a.post(new WorkRequest(8, Opcode.SEND_WITH_IMM, List.of(new ScatterGatherEntry(msg, 0, 10)), 0, 0, -5, true));
        assertEquals(Completion.success(8, WcOpcode.SEND, 10), pollOne(a));
        assertEquals(new Completion(7, WcStatus.SUCCESS, WcOpcode.RECV, 10, true, -5, 0), pollOne(b));
    }

    // ---- error completions ------------------------------------------------------------------------------

    @Test
    void aBadRkeyIsARemoteAccessErrorThenTheChannelFlushes() throws Exception {
        connect();
        MemoryRegion src = region(64, Access.LOCAL_WRITE);
        MemoryRegion dst = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        a.post(WorkRequest.write(21, ScatterGatherEntry.of(src), dst.address(), dst.rkey() + 1));
        Completion c = pollOne(a);
        assertEquals(21, c.wrId());
        assertEquals(WcStatus.REM_ACCESS_ERR, c.status());
        assertEquals(WcOpcode.RDMA_WRITE, c.opcode());
        assertEquals(0, c.byteLength());
        assertEquals(ChannelState.ERROR, a.state());
        VerbsChannel va = (VerbsChannel) a;
        assertEquals(QpState.ERR, transport.library().queryQpState(va.queuePair()));
        // later requests, even good and unsignaled ones, complete with WR_FLUSH_ERR
        a.post(WorkRequest.write(22, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())));
        a.post(WorkRequest.write(23, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())).unsignaled());
        Completion f1 = pollOne(a);
        Completion f2 = pollOne(a);
        assertEquals(List.of(22L, 23L), List.of(f1.wrId(), f2.wrId()));
        assertEquals(WcStatus.WR_FLUSH_ERR, f1.status());
        assertEquals(WcStatus.WR_FLUSH_ERR, f2.status());
        // the responder's queue pair went to ERR too, as on a NIC, and its channel says so
        assertEquals(ChannelState.ERROR, b.state());
    }

    @Test
    void anOutOfBoundsWriteIsARemoteAccessError() throws Exception {
        connect();
        MemoryRegion src = region(128, Access.LOCAL_WRITE);
        MemoryRegion dst = region(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        a.post(WorkRequest.write(31, ScatterGatherEntry.of(src), dst.address() + 4096 - 64, dst.rkey()));
        assertEquals(WcStatus.REM_ACCESS_ERR, pollOne(a).status());
        assertEquals(ChannelState.ERROR, a.state());
    }

    @Test
    void aReadOfAWriteOnlyRegionIsARemoteAccessError() throws Exception {
        connect();
        MemoryRegion local = region(64, Access.LOCAL_WRITE);
        MemoryRegion writeOnly = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        a.post(WorkRequest.read(32, ScatterGatherEntry.of(local), new RemoteRegion(writeOnly.address(), writeOnly.length(), writeOnly.rkey())));
        assertEquals(WcStatus.REM_ACCESS_ERR, pollOne(a).status());
    }

    @Test
    void aDeregisteredRemoteRegionIsARemoteAccessError() throws Exception {
        connect();
        MemoryRegion src = region(64, Access.LOCAL_WRITE);
        MemoryRegion dst = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        var remote = new RemoteRegion(dst.address(), dst.length(), dst.rkey());
        dst.close();
        assertFalse(dst.isOpen());
        a.post(WorkRequest.write(41, ScatterGatherEntry.of(src), remote));
        assertEquals(WcStatus.REM_ACCESS_ERR, pollOne(a).status());
    }

    @Test
    void aDeregisteredLocalRegionIsRefusedAndNothingIsPosted() throws Exception {
        connect();
        MemoryRegion src = region(64, Access.LOCAL_WRITE);
        MemoryRegion dst = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        ScatterGatherEntry sge = ScatterGatherEntry.of(src);
        src.close();
        src.close();
        TransportException e = assertThrows(TransportException.class,
                () -> a.post(WorkRequest.write(42, sge, new RemoteRegion(dst.address(), dst.length(), dst.rkey()))));
        assertEquals(TransportError.CLOSED, e.error());
        assertEquals(0, a.poll(new Completion[4]));
        assertEquals(ChannelState.CONNECTED, a.state());
        MemoryRegion src2 = region(64, Access.LOCAL_WRITE);
        a.post(WorkRequest.write(43, ScatterGatherEntry.of(src2), new RemoteRegion(dst.address(), dst.length(), dst.rkey())));
        assertEquals(43, pollOne(a).wrId());
    }

    @Test
    void aSendWithoutAPostedReceiveFailsAtTheSender() throws Exception {
        connect();
        MemoryRegion msg = region(64, Access.LOCAL_WRITE);
        a.post(WorkRequest.send(51, ScatterGatherEntry.of(msg)));
        assertEquals(WcStatus.RNR_RETRY_EXC_ERR, pollOne(a).status());
    }

    // ---- refusals that change nothing -------------------------------------------------------------------

    @Test
    void wrongStatesAreRefused() throws Exception {
        MemoryRegion src = region(64, Access.LOCAL_WRITE);
        MemoryRegion dst = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        TransportException e = assertThrows(TransportException.class,
                () -> a.post(WorkRequest.write(61, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey()))));
        assertEquals(TransportError.WRONG_STATE, e.error());
        assertTrue(e.getMessage().contains("not connected"), e.getMessage());
        assertEquals(ChannelState.INIT, a.state());

        connect();
        e = assertThrows(TransportException.class, () -> a.connect(b.localEndpoint()));
        assertEquals(TransportError.WRONG_STATE, e.error());
        assertEquals(ChannelState.CONNECTED, a.state());
        assertEquals(b.localEndpoint(), a.remoteEndpoint());

        a.close();
        e = assertThrows(TransportException.class,
                () -> a.post(WorkRequest.write(62, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey()))));
        assertEquals(TransportError.CLOSED, e.error());
        assertEquals(ChannelState.CLOSED, a.state());
        a.close();
    }

    @Test
    void aTcpEndpointIsNotAVerbsPeer() {
        EndpointInfo tcp = new EndpointInfo.Tcp(new InetSocketAddress("127.0.0.1", 9), 1, new byte[16]);
        TransportException e = assertThrows(TransportException.class, () -> a.connect(tcp));
        assertEquals(TransportError.INVALID_ARGUMENT, e.error());
        assertEquals(ChannelState.INIT, a.state());
    }

    @Test
    void badRegistrationsAreRefused() {
        assertRefused(() -> transport.register(MemorySegment.ofArray(new byte[64]), Set.of(Access.LOCAL_WRITE)),
                TransportError.INVALID_ARGUMENT, "Java heap");
        assertRefused(() -> transport.register(arena.allocate(0), Set.of(Access.LOCAL_WRITE)),
                TransportError.INVALID_ARGUMENT, "zero-length");
        assertRefused(() -> transport.register(arena.allocate(64), Set.of()), TransportError.INVALID_ARGUMENT, "access");
        assertRefused(() -> transport.register(arena.allocate(64), Set.of(Access.REMOTE_WRITE)),
                TransportError.INVALID_ARGUMENT, "LOCAL_WRITE with REMOTE_WRITE");
        assertRefused(() -> transport.register(null, Set.of(Access.LOCAL_WRITE)), TransportError.INVALID_ARGUMENT, "null");
        MemorySegment dead;
        try (Arena gone = Arena.ofConfined()) {
            dead = gone.allocate(64);
        }
        assertRefused(() -> transport.register(dead, Set.of(Access.LOCAL_WRITE)), TransportError.INVALID_ARGUMENT,
                "closed");
    }

    @Test
    void badRequestsAreRefusedAndTheChannelStillWorks() throws Exception {
        connect();
        MemoryRegion src = region(64, Access.LOCAL_WRITE);
        MemoryRegion dst = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        try (ComponentFixture other = ComponentFixture.software()) {
            MemoryRegion foreign = other.transport().register(arena.allocate(64), Set.of(Access.LOCAL_WRITE));
            assertRefused(() -> a.post(WorkRequest.write(71, ScatterGatherEntry.of(foreign), new RemoteRegion(dst.address(), dst.length(), dst.rkey()))),
                    TransportError.INVALID_ARGUMENT, "not registered with verbs:softrc0");
        }
        List<ScatterGatherEntry> five = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            five.add(new ScatterGatherEntry(src, i, 1));
        }
        assertRefused(() -> a.post(new WorkRequest(72, Opcode.WRITE, five, dst.address(), dst.rkey(), 0, true)),
                TransportError.INVALID_ARGUMENT, "5 scatter-gather entries; the channel allows 4");
        assertRefused(() -> a.post(null), TransportError.INVALID_ARGUMENT, "null");
        assertEquals(ChannelState.CONNECTED, a.state());
        a.post(WorkRequest.write(73, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())));
        assertEquals(73, pollOne(a).wrId());
    }

    @Test
    void badChannelOptionsAreRefused() {
        assertRefused(() -> transport.openChannel(new ChannelOptions(1 << 20, 8, 1, Duration.ofSeconds(1))),
                TransportError.INVALID_ARGUMENT, "exceed the device's");
        assertRefused(() -> transport.openChannel(new ChannelOptions(8, 8, 1000, Duration.ofSeconds(1))),
                TransportError.INVALID_ARGUMENT, "maxSge 1000");
        assertRefused(() -> transport.openChannel(null), TransportError.INVALID_ARGUMENT, "null");
        assertEquals(2, transport.openChannels().size());
    }

    @Test
    void aFullSendQueueIsRefusedUntilASignaledCompletionRetiresIt() throws Exception {
        try (Channel x = transport.openChannel(new ChannelOptions(4, 4, 1, Duration.ofSeconds(1)));
             Channel y = transport.openChannel(new ChannelOptions(4, 4, 1, Duration.ofSeconds(1)))) {
            x.connect(y.localEndpoint());
            y.connect(x.localEndpoint());
            MemoryRegion src = region(64, Access.LOCAL_WRITE);
            MemoryRegion dst = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
            WorkRequest quiet = WorkRequest.write(81, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())).unsignaled();
            for (int i = 0; i < 3; i++) {
                x.post(quiet);
            }
            x.post(WorkRequest.write(82, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())));
            TransportException e = assertThrows(TransportException.class, () -> x.post(quiet));
            assertEquals(TransportError.RESOURCE_EXHAUSTED, e.error());
            assertTrue(e.getMessage().contains("signal"), e.getMessage());
            assertEquals(82, pollOne(x).wrId()); // retires the three unsignaled ones with it
            for (int i = 0; i < 4; i++) {
                x.post(quiet);
            }
            assertThrows(TransportException.class, () -> x.post(quiet));
        }
    }

    private static void assertRefused(ThrowingRunnable r, TransportError error, String fragment) {
        TransportException e = assertThrows(TransportException.class, r::run);
        assertEquals(error, e.error(), e.getMessage());
        assertTrue(e.getMessage().contains(fragment), "'" + e.getMessage() + "' lacks '" + fragment + "'");
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    // ---- volume and deferred completion -------------------------------------------------------------------

    @Test
    void tenThousandSmallWritesGiveExactlyTheSignaledCompletions() throws Exception {
        connect();
        runTenThousand();
    }

    @Test
    void tenThousandSmallWritesInDeferredMode() throws Exception {
        connect();
        SoftVerbs.setDeferred(true);
        runTenThousand();
    }

    /** 10 000 × 64 B writes, every 10th signaled: exactly 1 000 completions, every write landed. */
    private void runTenThousand() throws Exception {
        int ops = 10_000;
        MemoryRegion src = region(64L * ops, Access.LOCAL_WRITE);
        MemoryRegion dst = region(64L * ops, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        fillPattern(src.segment(), 9);
        Completion[] out = new Completion[32];
        int completions = 0;
        int posted = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (posted < ops) {
            WorkRequest w = WorkRequest.write(posted, new ScatterGatherEntry(src, 64L * posted, 64),
                    dst.address() + 64L * posted, dst.rkey());
            try {
                a.post((posted + 1) % 10 == 0 ? w : w.unsignaled());
                posted++;
            } catch (TransportException full) {
                assertEquals(TransportError.RESOURCE_EXHAUSTED, full.error(), full.getMessage());
            }
            int n = a.poll(out);
            for (int i = 0; i < n; i++) {
                assertEquals(WcStatus.SUCCESS, out[i].status(), out[i].toString());
                assertEquals((completions + i + 1) * 10L - 1, out[i].wrId(), "completions arrive in order");
            }
            completions += n;
            assertTrue(System.nanoTime() < deadline, "stuck after " + posted + " posts");
        }
        while (completions < ops / 10) {
            completions += a.poll(out);
            assertTrue(System.nanoTime() < deadline, "stuck at " + completions + " completions");
        }
        Thread.sleep(20);
        assertEquals(0, a.poll(out), "no completion beyond the signaled ones");
        assertEquals(ops / 10, completions);
        assertEquals(-1, src.segment().mismatch(dst.segment()));
    }

    @Test
    void tenThousandSmallWritesThroughBatchesInDeferredMode() throws Exception {
        connect();
        SoftVerbs.setDeferred(true);
        int ops = 10_000;
        int batch = 100;
        MemoryRegion src = region(64L * ops, Access.LOCAL_WRITE);
        MemoryRegion dst = region(64L * ops, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        fillPattern(src.segment(), 10);
        long completed = 0;
        long bytes = 0;
        for (int start = 0; start < ops; start += batch) {
            List<WorkRequest> requests = new ArrayList<>(batch);
            for (int i = start; i < start + batch; i++) {
                requests.add(WorkRequest.write(i, new ScatterGatherEntry(src, 64L * i, 64), dst.address() + 64L * i,
                        dst.rkey()));
            }
            BatchResult r = a.submit(requests, WAIT).get(30, TimeUnit.SECONDS);
            assertTrue(r.isSuccess(), () -> r.firstFailure().toString());
            for (int i = 0; i < batch; i++) {
                assertEquals(start + i, r.completions().get(i).wrId(), "results in submission order");
            }
            completed += r.completions().size();
            bytes += r.bytesTransferred();
        }
        assertEquals(ops, completed);
        assertEquals(64L * ops, bytes);
        assertEquals(-1, src.segment().mismatch(dst.segment()));
        assertEquals(0, a.poll(new Completion[8]), "batch completions never reach poll()");
    }

    @Test
    void inDeferredModeTheBytesArriveAfterThePostButByTheCompletion() throws Exception {
        connect();
        SoftVerbs.setDeferred(true);
        SoftVerbs.setDelayMicros(50_000);
        MemoryRegion src = region(MIB, Access.LOCAL_WRITE);
        MemoryRegion dst = region(MIB, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        fillPattern(src.segment(), 11);
        a.post(WorkRequest.write(91, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())));
        assertEquals(1, SoftVerbs.pending(), "the device has not executed it yet");
        assertEquals(0, a.poll(new Completion[1]));
        assertEquals(0, dst.segment().get(JAVA_BYTE, 0));
        assertEquals(Completion.success(91, WcOpcode.RDMA_WRITE, MIB), pollOne(a));
        assertEquals(-1, src.segment().mismatch(dst.segment()));
    }

    // ---- batches ---------------------------------------------------------------------------------------

    @Test
    void aFailedRequestInABatchFlushesTheRestAndTheFutureStillCompletes() throws Exception {
        connect();
        MemoryRegion src = region(64, Access.LOCAL_WRITE);
        MemoryRegion dst = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        SoftVerbs.setDeferred(true);
        BatchResult r = a.submit(List.of(
                WorkRequest.write(1, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())),
                WorkRequest.write(2, ScatterGatherEntry.of(src), dst.address(), dst.rkey() ^ 0x100),
                WorkRequest.write(3, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey()))), WAIT).get(30, TimeUnit.SECONDS);
        assertFalse(r.timedOut());
        assertEquals(List.of(WcStatus.SUCCESS, WcStatus.REM_ACCESS_ERR, WcStatus.WR_FLUSH_ERR),
                r.completions().stream().map(Completion::status).toList());
        assertEquals(List.of(1L, 2L, 3L), r.completions().stream().map(Completion::wrId).toList());
        assertEquals(WcStatus.REM_ACCESS_ERR, r.firstFailure().orElseThrow().status());
        assertEquals(ChannelState.ERROR, a.state());
    }

    @Test
    void aBatchPastItsDeadlineReportsTimeoutsAndPutsTheChannelInError() throws Exception {
        connect();
        MemoryRegion src = region(64, Access.LOCAL_WRITE);
        MemoryRegion dst = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        SoftVerbs.setDeferred(true);
        SoftVerbs.setDelayMicros(500_000);
        long start = System.nanoTime();
        BatchResult r = a.submit(List.of(WorkRequest.write(1, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())),
                WorkRequest.write(2, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey()))), Duration.ofMillis(50))
                .get(30, TimeUnit.SECONDS);
        long tookMs = (System.nanoTime() - start) / 1_000_000;
        assertTrue(r.timedOut());
        assertFalse(r.isSuccess());
        assertEquals(List.of(WcStatus.RESP_TIMEOUT_ERR, WcStatus.RESP_TIMEOUT_ERR),
                r.completions().stream().map(Completion::status).toList());
        assertTrue(tookMs < 400, "the deadline, not the device, ended the batch (" + tookMs + " ms)");
        assertEquals(ChannelState.ERROR, a.state());
    }

    @Test
    void submitRefusals() throws Exception {
        MemoryRegion src = region(64, Access.LOCAL_WRITE);
        MemoryRegion dst = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        WorkRequest w = WorkRequest.write(1, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey()));
        assertFailed(a.submit(List.of(w), WAIT), TransportError.WRONG_STATE); // not connected
        connect();
        assertFailed(a.submit(List.of(w), Duration.ZERO), TransportError.INVALID_ARGUMENT);
        assertFailed(a.submit(null, WAIT), TransportError.INVALID_ARGUMENT);
        List<WorkRequest> tooMany = new ArrayList<>();
        for (int i = 0; i < ChannelOptions.DEFAULT.sendQueueDepth() + 1; i++) {
            tooMany.add(w);
        }
        assertFailed(a.submit(tooMany, WAIT), TransportError.INVALID_ARGUMENT);
        BatchResult empty = a.submit(List.of(), WAIT).get();
        assertTrue(empty.isSuccess() && empty.completions().isEmpty());
        // nothing above changed the channel
        assertTrue(a.submit(List.of(w), WAIT).get(30, TimeUnit.SECONDS).isSuccess());
    }

    @Test
    void aBatchMayMixReceivesAndSends() throws Exception {
        connect();
        MemoryRegion inbox = region(64, Access.LOCAL_WRITE);
        MemoryRegion msg = region(64, Access.LOCAL_WRITE);
        CompletableFuture<BatchResult> receives = b.submit(List.of(WorkRequest.recv(1, ScatterGatherEntry.of(inbox)),
                WorkRequest.recv(2)), WAIT);
        BatchResult sends = a.submit(List.of(WorkRequest.send(3, ScatterGatherEntry.of(msg)),
                new WorkRequest(4, Opcode.SEND_WITH_IMM, List.of(), 0, 0, 99, true)), WAIT).get(30, TimeUnit.SECONDS);
        assertTrue(sends.isSuccess());
        BatchResult r = receives.get(30, TimeUnit.SECONDS);
        assertTrue(r.isSuccess());
        assertEquals(64, r.completions().get(0).byteLength());
        assertEquals(99, r.completions().get(1).immediate());
    }

    @Test
    void theSpinPollerCompletesBatchesToo() throws Exception {
        try (ComponentFixture spin = ComponentFixture.software(Map.of("poller_idle", "spin"))) {
            Transport t = spin.transport();
            try (Channel x = t.openChannel(ChannelOptions.DEFAULT); Channel y = t.openChannel(ChannelOptions.DEFAULT)) {
                x.connect(y.localEndpoint());
                y.connect(x.localEndpoint());
                MemoryRegion src = t.register(arena.allocate(64), Set.of(Access.LOCAL_WRITE));
                MemoryRegion dst = t.register(arena.allocate(64), Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
                assertTrue(x.submit(List.of(WorkRequest.write(1, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey()))), WAIT)
                        .get(30, TimeUnit.SECONDS).isSuccess());
            }
        }
    }

    private static void assertFailed(CompletableFuture<BatchResult> f, TransportError error) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(5, TimeUnit.SECONDS));
        TransportException te = (TransportException) e.getCause();
        assertEquals(error, te.error(), te.getMessage());
    }

    // ---- close --------------------------------------------------------------------------------------------

    // ---- reset ------------------------------------------------------------------------------------------

    @Test
    void resetTakesTheSameQueuePairThroughResetToInitAndKeepsTheEndpoint() throws Exception {
        connect();
        VerbsChannel va = (VerbsChannel) a;
        EndpointInfo.Verbs before = (EndpointInfo.Verbs) a.localEndpoint();
        MemoryRegion src = region(4096, Access.LOCAL_WRITE);
        MemoryRegion dst = region(4096, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        fillPattern(src.segment(), 5);
        a.post(WorkRequest.write(1, ScatterGatherEntry.of(src), dst.address(), dst.rkey() + 1));
        assertEquals(WcStatus.REM_ACCESS_ERR, pollOne(a).status());
        assertEquals(QpState.ERR, transport.library().queryQpState(va.queuePair()));

        a.reset();

        assertEquals(QpState.INIT, transport.library().queryQpState(va.queuePair()), "ERR → RESET → INIT");
        assertEquals(before, a.localEndpoint(), "same QPN, same PSN");
        assertEquals(before.qpn(), va.qpNum());
        assertEquals(ChannelState.INIT, a.state());
        assertNull(a.remoteEndpoint());
        assertEquals(List.of(a, b), List.copyOf(transport.openChannels()), "no queue pair was added");
        b.reset();
        connect();
        a.post(WorkRequest.write(2, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())));
        assertEquals(Completion.success(2, WcOpcode.RDMA_WRITE, 4096), pollOne(a));
        assertEquals(-1, src.segment().mismatch(dst.segment()));
    }

    @Test
    void resetTakesWorkTheDeviceHasNotRunOffItAndFlushesIt() throws Exception {
        connect();
        MemoryRegion src = region(64, Access.LOCAL_WRITE);
        MemoryRegion dst = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        src.segment().fill((byte) 7);
        SoftVerbs.setDeferred(true);
        SoftVerbs.setDelayMicros(3_000_000); // longer than the reset waits for the device's own flushes
        a.post(WorkRequest.write(1, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())));
        CompletableFuture<BatchResult> batch = a.submit(List.of(WorkRequest.write(2, ScatterGatherEntry.of(src),
                new RemoteRegion(dst.address(), dst.length(), dst.rkey()))), Duration.ofMinutes(1));
        assertEquals(2, SoftVerbs.pending());

        a.reset();

        assertEquals(0, SoftVerbs.pending(), "RESET took the queued requests off the device: they never run");
        assertTrue(batch.isDone(), "the batch future is complete when reset returns");
        assertEquals(WcStatus.WR_FLUSH_ERR, batch.get().completions().getFirst().status());
        Completion[] out = new Completion[2];
        assertEquals(1, a.poll(out), "the flushed post is there to poll when reset returns");
        assertEquals(Completion.failure(1, WcStatus.WR_FLUSH_ERR, WcOpcode.RDMA_WRITE), out[0]);
        assertEquals(0, dst.segment().get(JAVA_BYTE, 0), "nothing of the flushed writes landed");
        SoftVerbs.setDelayMicros(0);
        b.reset();
        connect();
        a.post(WorkRequest.write(3, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())));
        assertEquals(Completion.success(3, WcOpcode.RDMA_WRITE, 64), pollOne(a));
        assertEquals(-1, src.segment().mismatch(dst.segment()));
    }

    @Test
    void closingAChannelFlushesWhatIsInFlight() throws Exception {
        connect();
        MemoryRegion src = region(64, Access.LOCAL_WRITE);
        MemoryRegion dst = region(64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        SoftVerbs.setDeferred(true);
        SoftVerbs.setDelayMicros(5_000_000);
        a.post(WorkRequest.write(1, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())));
        CompletableFuture<BatchResult> batch = a.submit(List.of(WorkRequest.write(2, ScatterGatherEntry.of(src),
                new RemoteRegion(dst.address(), dst.length(), dst.rkey()))), Duration.ofMinutes(1));
        long start = System.nanoTime();
        a.close();
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(4), "close must not wait for the device delay");
        Completion flushed = pollOne(a); // poll still hands out what close flushed
        assertEquals(1, flushed.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
        BatchResult r = batch.get(5, TimeUnit.SECONDS);
        assertEquals(WcStatus.WR_FLUSH_ERR, r.completions().getFirst().status());
        assertEquals(ChannelState.CLOSED, a.state());
        assertEquals(List.of(b), List.copyOf(transport.openChannels()));
    }

    @Test
    void theTransportClosesInOneVisibleOrderOnceAndForAll() throws Exception {
        connect();
        int qa = ((VerbsChannel) a).qpNum();
        int qb = ((VerbsChannel) b).qpNum();
        MemoryRegion r1 = region(4096, Access.LOCAL_WRITE);
        MemoryRegion r2 = region(8192, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        MemoryRegion closedByOwner = region(64, Access.LOCAL_WRITE);
        closedByOwner.close();
        boolean watching = transport.isWatchingAsyncEvents();
        transport.close();
        List<String> steps0 = transport.closeSteps();
        if (watching) {
            // the event reader reads the context, which closes last: it stops first
            assertEquals("event reader", steps0.getFirst(), steps0.toString());
            steps0 = steps0.subList(1, steps0.size());
        }
        assertEquals(List.of("poller", "qp " + qa, "qp " + qb, "cq of qp " + qa, "cq of qp " + qb),
                steps0.subList(0, 5));
        List<String> rest = steps0.subList(5, steps0.size());
        assertEquals(4, rest.size(), rest.toString());
        assertTrue(rest.get(0).startsWith("mr ") && rest.get(1).startsWith("mr "), rest.toString());
        assertEquals(List.of("pd", "context"), rest.subList(2, 4), "every destroy succeeded (no errno)");
        assertFalse(r1.isOpen());
        assertFalse(r2.isOpen());
        assertEquals(ChannelState.CLOSED, a.state());
        assertFalse(transport.isAvailable());
        assertEquals("verbs:softrc0 is closed", transport.unavailabilityCause().orElseThrow());
        // twice is harmless, and so are the owners' own closes afterwards
        int steps = transport.closeSteps().size();
        transport.close();
        a.close();
        r1.close();
        assertEquals(steps, transport.closeSteps().size());
        TransportException e = assertThrows(TransportException.class, () -> transport.openChannel(ChannelOptions.DEFAULT));
        assertEquals(TransportError.UNAVAILABLE, e.error());
        assertNotNull(e.getMessage());
    }
}
