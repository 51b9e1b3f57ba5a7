package org.objrdma.transport.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/**
 * The behaviour every {@link Transport} must show, whatever carries the bytes. A transport module
 * extends this class in its tests and says how to get its transports; every test here then runs against
 * the real implementation.
 *
 * <p>What is checked: WRITE, READ, WRITE_WITH_IMM and SEND from 1 byte up to {@link #largestTransfer()}
 * (256 MiB unless a subclass lowers it) verified by CRC32C and by untouched guard bytes around the
 * target; a bad rkey, an out-of-bounds range and a missing access flag complete the requester with
 * {@link WcStatus#REM_ACCESS_ERR} and flush later work; a receive that is missing or too short gives the
 * verbs statuses; a batch that misses its deadline reports {@link WcStatus#RESP_TIMEOUT_ERR}; a wrong
 * access key is refused at connect; 64 channels move data in parallel; bad arguments are refused
 * synchronously with the documented {@link TransportError}; {@link Channel#reset()} flushes outstanding
 * work, keeps the channel's id and endpoint, and lets both ends connect again.
 *
 * <p>Lifecycle: one instance per class ({@link TestInstance.Lifecycle#PER_CLASS}); {@link #openTransports()}
 * runs once before the first test and its {@link TransportPair#cleanup()} after the last. Every channel,
 * region and native buffer a test makes is closed after it, channels first.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class TransportContractTest {

    /** 1 MiB. */
    protected static final int MIB = 1 << 20;

    /**
     * The two ends under test. They may be one transport instance used for both ends.
     *
     * @param requester the transport whose channels post the work requests
     * @param responder the transport that owns the target memory
     * @param cleanup   closes both after the last test (may be a no-op)
     */
    public record TransportPair(Transport requester, Transport responder, AutoCloseable cleanup) {
    }

    /** Gives the transports under test; called once per test class. */
    protected abstract TransportPair openTransports() throws Exception;

    /** Largest single transfer exercised; 256 MiB unless the transport cannot do that in a test. */
    protected long largestTransfer() {
        return 256L * MIB;
    }

    /** Options of every channel the suite opens. */
    protected ChannelOptions channelOptions() {
        return ChannelOptions.DEFAULT;
    }

    /** How long a test waits for one completion before it fails. */
    protected Duration completionTimeout() {
        return Duration.ofSeconds(60);
    }

    /** How many channel pairs move data at once in {@link #manyChannelsInParallel()}. */
    protected int parallelChannels() {
        return 64;
    }

    /**
     * True if a peer can be refused at connect for presenting a wrong access key. Verbs endpoints carry no
     * key, so the verbs transport answers false and the test is skipped there.
     */
    protected boolean supportsWrongKeyAtConnect() {
        return true;
    }

    /**
     * True if a SEND or WRITE_WITH_IMM without a posted receive ends in {@link WcStatus#RNR_RETRY_EXC_ERR}
     * in bounded time. A verbs channel configured with infinite RNR retries answers false.
     */
    protected boolean supportsReceiverNotReadyFailure() {
        return true;
    }

    /**
     * {@code genuine} with a wrong access key, or null if the endpoint kind has no key. The default
     * knows {@link EndpointInfo.Tcp}.
     */
    protected EndpointInfo withWrongKey(EndpointInfo genuine) {
        if (genuine instanceof EndpointInfo.Tcp tcp) {
            byte[] key = tcp.key();
            key[0] ^= 0x01;
            return new EndpointInfo.Tcp(tcp.address(), tcp.channelId(), key);
        }
        return null;
    }

    // ------------------------------------------------------------------ fixtures

    private TransportPair transports;
    private final Deque<AutoCloseable> toClose = new ArrayDeque<>();

    @BeforeAll
    final void openTransportsOnce() throws Exception {
        transports = openTransports();
        assertNotNull(transports, "openTransports() returned null");
        assertTrue(transports.requester().isAvailable(), "requester transport not available: "
                + transports.requester().unavailabilityCause().orElse("?"));
        assertTrue(transports.responder().isAvailable(), "responder transport not available: "
                + transports.responder().unavailabilityCause().orElse("?"));
    }

    @AfterAll
    final void closeTransportsOnce() throws Exception {
        if (transports != null) {
            transports.cleanup().close();
        }
    }

    /** Closes what the test made: every channel first, then regions and memory newest first. */
    @AfterEach
    final void closeTestResources() throws Exception {
        Exception first = null;
        List<AutoCloseable> order = new ArrayList<>();
        toClose.stream().filter(r -> r instanceof Channel).forEach(order::add);
        toClose.stream().filter(r -> !(r instanceof Channel)).forEach(order::add);
        toClose.clear();
        for (AutoCloseable resource : order) {
            try {
                resource.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** The requesting transport. */
    protected final Transport requester() {
        return transports.requester();
    }

    /** The responding transport. */
    protected final Transport responder() {
        return transports.responder();
    }

    /** {@code resource}, closed after the test (newest first). */
    protected final <T extends AutoCloseable> T closeLater(T resource) {
        toClose.push(resource);
        return resource;
    }

    /** Native memory of {@code size} bytes in a shared arena, freed after the test. */
    protected final MemorySegment allocate(long size) {
        Arena arena = closeLater(Arena.ofShared());
        return arena.allocate(size, 4096);
    }

    /** Registers {@code segment} with {@code transport}; the region is closed after the test. */
    protected final MemoryRegion register(Transport transport, MemorySegment segment, Access... access)
            throws TransportException {
        return closeLater(transport.register(segment, EnumSet.copyOf(List.of(access))));
    }

    /** A channel pair connected over the transports, both sides calling connect as RC requires. */
    protected final Channel[] connectedPair() throws Exception {
        Channel a = closeLater(requester().openChannel(channelOptions()));
        Channel b = closeLater(responder().openChannel(channelOptions()));
        assertEquals(ChannelState.INIT, a.state());
        assertEquals(ChannelState.INIT, b.state());
        connectBoth(a, b);
        return new Channel[] {a, b};
    }

    private static void connectBoth(Channel a, Channel b) throws Exception {
        connectBoth(a, a.localEndpoint(), b, b.localEndpoint());
    }

    /** Connects {@code a} and {@code b} with endpoints the test kept, as a peer that cached them would. */
    private static void connectBoth(Channel a, EndpointInfo ea, Channel b, EndpointInfo eb) throws Exception {
        CompletableFuture<Void> other = new CompletableFuture<>();
        Thread.ofVirtual().name("tck-connect-" + b.id()).start(() -> {
            try {
                b.connect(ea);
                other.complete(null);
            } catch (Throwable e) {
                other.completeExceptionally(e);
            }
        });
        a.connect(eb);
        other.get(30, TimeUnit.SECONDS);
        assertEquals(ChannelState.CONNECTED, a.state());
        assertEquals(ChannelState.CONNECTED, b.state());
    }

    /** Waits for the next completion on {@code channel}, failing the test after {@link #completionTimeout()}. */
    protected final Completion awaitCompletion(Channel channel) throws InterruptedException {
        Completion[] out = new Completion[1];
        long deadline = System.nanoTime() + completionTimeout().toNanos();
        int spins = 0;
        while (channel.poll(out) == 0) {
            if (System.nanoTime() > deadline) {
                fail("no completion on channel " + channel.id() + " within " + completionTimeout());
            }
            if (++spins > 1000) {
                TimeUnit.MICROSECONDS.sleep(200);
            } else {
                Thread.onSpinWait();
            }
        }
        return out[0];
    }

    /** Asserts that nothing more completes on {@code channel} during a short while. */
    protected final void assertNoCompletion(Channel channel, Duration during) throws InterruptedException {
        Completion[] out = new Completion[1];
        long deadline = System.nanoTime() + during.toNanos();
        while (System.nanoTime() < deadline) {
            if (channel.poll(out) > 0) {
                fail("unexpected completion " + out[0]);
            }
            TimeUnit.MILLISECONDS.sleep(2);
        }
    }

    /** Waits until {@code channel} reaches {@code state}. */
    protected static void awaitState(Channel channel, ChannelState state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (channel.state() != state) {
            if (System.nanoTime() > deadline) {
                fail("channel " + channel.id() + " stayed " + channel.state() + ", expected " + state);
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }

    // ------------------------------------------------------------------ data helpers

    /** Fills {@code [offset, offset + length)} of {@code segment} with a pattern derived from {@code seed}. */
    protected static void fillPattern(MemorySegment segment, long offset, long length, long seed) {
        long x = seed * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
        long i = 0;
        for (; i + 8 <= length; i += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            segment.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + i, x);
        }
        for (; i < length; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            segment.set(ValueLayout.JAVA_BYTE, offset + i, (byte) x);
        }
    }

    /** CRC32C of {@code [offset, offset + length)}. */
    protected static long checksum(MemorySegment segment, long offset, long length) {
        CRC32C crc = new CRC32C();
        long done = 0;
        while (done < length) {
            long n = Math.min(length - done, 64L * MIB);
            crc.update(segment.asSlice(offset + done, n).asByteBuffer());
            done += n;
        }
        return crc.getValue();
    }

    /** True if every byte of {@code [offset, offset + length)} equals {@code value}. */
    protected static boolean allBytesAre(MemorySegment segment, long offset, long length, byte value) {
        for (long i = 0; i < length; i++) {
            if (segment.get(ValueLayout.JAVA_BYTE, offset + i) != value) {
                return false;
            }
        }
        return true;
    }

    /** Transfer sizes every data test covers: 1 byte, odd small, 1 MiB + 3, and the largest. */
    protected LongStream transferSizes() {
        return LongStream.of(1, 4097, MIB + 3, largestTransfer()).distinct().sorted();
    }

    private static final int GUARD = 64;
    private static final byte GUARD_BYTE = (byte) 0x5A;

    /** Target memory of {@code size} bytes between two guard zones of {@link #GUARD} bytes. */
    private MemorySegment guardedTarget(long size) {
        MemorySegment target = allocate(size + 2L * GUARD);
        target.asSlice(0, GUARD).fill(GUARD_BYTE);
        target.asSlice(GUARD + size, GUARD).fill(GUARD_BYTE);
        return target;
    }

    private static void assertGuardsIntact(MemorySegment target, long size) {
        assertTrue(allBytesAre(target, 0, GUARD, GUARD_BYTE), "bytes before the target range were touched");
        assertTrue(allBytesAre(target, GUARD + size, GUARD, GUARD_BYTE), "bytes after the target range were touched");
    }

    private static ScatterGatherEntry sge(MemoryRegion region, long offset, long length) {
        return new ScatterGatherEntry(region, offset, Math.toIntExact(length));
    }

    // ------------------------------------------------------------------ data movement

    @ParameterizedTest(name = "WRITE of {0} bytes")
    @MethodSource("transferSizes")
    void writeIsPlacedBeforeSuccess(long size) throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment source = allocate(size);
        fillPattern(source, 0, size, size);
        MemorySegment target = guardedTarget(size);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(responder(), target, Access.LOCAL_WRITE, Access.REMOTE_WRITE);

        ch[0].post(WorkRequest.write(11, sge(src, 0, size), dst.address() + GUARD, dst.rkey()));
        Completion c = awaitCompletion(ch[0]);

        assertEquals(Completion.success(11, WcOpcode.RDMA_WRITE, size), c);
        assertEquals(checksum(source, 0, size), checksum(target, GUARD, size), "target differs from source");
        assertGuardsIntact(target, size);
    }

    @ParameterizedTest(name = "READ of {0} bytes")
    @MethodSource("transferSizes")
    void readReturnsPeerBytes(long size) throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment remote = allocate(size);
        fillPattern(remote, 0, size, ~size);
        MemorySegment local = guardedTarget(size);
        MemoryRegion theirs = register(responder(), remote, Access.LOCAL_WRITE, Access.REMOTE_READ);
        MemoryRegion mine = register(requester(), local, Access.LOCAL_WRITE);

        ch[0].post(WorkRequest.read(12, sge(mine, GUARD, size), theirs.address(), theirs.rkey()));
        Completion c = awaitCompletion(ch[0]);

        assertEquals(Completion.success(12, WcOpcode.RDMA_READ, size), c);
        assertEquals(checksum(remote, 0, size), checksum(local, GUARD, size), "read bytes differ from the peer's");
        assertGuardsIntact(local, size);
    }

    @ParameterizedTest(name = "WRITE_WITH_IMM of {0} bytes")
    @MethodSource("transferSizes")
    void writeWithImmediateCompletesPeerReceive(long size) throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment source = allocate(size);
        fillPattern(source, 0, size, size + 1);
        MemorySegment target = guardedTarget(size);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(responder(), target, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        ch[1].post(WorkRequest.recv(77));

        int imm = 0xCAFE_0000 | (int) (size & 0xFFFF);
        ch[0].post(WorkRequest.writeWithImm(13, sge(src, 0, size), dst.address() + GUARD, dst.rkey(), imm));
        Completion sent = awaitCompletion(ch[0]);
        Completion received = awaitCompletion(ch[1]);

        assertEquals(Completion.success(13, WcOpcode.RDMA_WRITE, size), sent);
        assertEquals(new Completion(77, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, size, true, imm, 0),
                received);
        assertEquals(checksum(source, 0, size), checksum(target, GUARD, size));
        assertGuardsIntact(target, size);
    }

    @ParameterizedTest(name = "SEND of {0} bytes")
    @MethodSource("transferSizes")
    void sendFillsPostedReceive(long size) throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment source = allocate(size);
        fillPattern(source, 0, size, size + 2);
        MemorySegment target = guardedTarget(size);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(responder(), target, Access.LOCAL_WRITE);
        ch[1].post(WorkRequest.recv(78, sge(dst, GUARD, size)));

        ch[0].post(WorkRequest.send(14, sge(src, 0, size)));
        Completion sent = awaitCompletion(ch[0]);
        Completion received = awaitCompletion(ch[1]);

        assertEquals(Completion.success(14, WcOpcode.SEND, size), sent);
        assertEquals(Completion.success(78, WcOpcode.RECV, size), received);
        assertEquals(checksum(source, 0, size), checksum(target, GUARD, size));
        assertGuardsIntact(target, size);
    }

    @Test
    void sendWithImmediateAndScatteredReceive() throws Exception {
        Channel[] ch = connectedPair();
        int size = 3 * 4096 + 5;
        MemorySegment source = allocate(size);
        fillPattern(source, 0, size, 99);
        MemorySegment target = allocate(2L * size);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(responder(), target, Access.LOCAL_WRITE);
        // the receive scatters over two pieces of the same region, with a hole between them
        int first = 4096 + 1;
        ch[1].post(new WorkRequest(79, Opcode.RECV,
                List.of(sge(dst, 0, first), sge(dst, size, size - first)), 0, 0, 0, true));

        ch[0].post(new WorkRequest(15, Opcode.SEND_WITH_IMM, List.of(sge(src, 0, size)), 0, 0, 0x1234_5678, true));
        assertEquals(Completion.success(15, WcOpcode.SEND, size), awaitCompletion(ch[0]));
        assertEquals(new Completion(79, WcStatus.SUCCESS, WcOpcode.RECV, size, true, 0x1234_5678, 0),
                awaitCompletion(ch[1]));
        assertEquals(checksum(source, 0, first), checksum(target, 0, first));
        assertEquals(checksum(source, first, size - first), checksum(target, size, size - first));
    }

    @Test
    void gatherWriteAndScatterRead() throws Exception {
        Channel[] ch = connectedPair();
        int piece = 64 * 1024 + 7;
        MemorySegment source = allocate(3L * piece);
        fillPattern(source, 0, 3L * piece, 5);
        MemorySegment remote = allocate(3L * piece);
        MemorySegment back = allocate(3L * piece);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(responder(), remote, Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
        MemoryRegion home = register(requester(), back, Access.LOCAL_WRITE);

        // gather pieces 2, 0, 1 of the source into one contiguous remote range
        ch[0].post(new WorkRequest(16, Opcode.WRITE,
                List.of(sge(src, 2L * piece, piece), sge(src, 0, piece), sge(src, piece, piece)),
                dst.address(), dst.rkey(), 0, true));
        assertEquals(Completion.success(16, WcOpcode.RDMA_WRITE, 3L * piece), awaitCompletion(ch[0]));
        // scatter it back in the original order
        ch[0].post(new WorkRequest(17, Opcode.READ,
                List.of(sge(home, 2L * piece, piece), sge(home, 0, piece), sge(home, piece, piece)),
                dst.address(), dst.rkey(), 0, true));
        assertEquals(Completion.success(17, WcOpcode.RDMA_READ, 3L * piece), awaitCompletion(ch[0]));
        assertEquals(checksum(source, 0, 3L * piece), checksum(back, 0, 3L * piece));
    }

    @Test
    void unsignaledSuccessIsSilent() throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment source = allocate(8192);
        fillPattern(source, 0, 8192, 3);
        MemorySegment target = allocate(8192);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(responder(), target, Access.LOCAL_WRITE, Access.REMOTE_WRITE);

        ch[0].post(WorkRequest.write(20, sge(src, 0, 4096), dst.address(), dst.rkey()).unsignaled());
        ch[0].post(WorkRequest.write(21, sge(src, 4096, 4096), dst.address() + 4096, dst.rkey()));
        assertEquals(Completion.success(21, WcOpcode.RDMA_WRITE, 4096), awaitCompletion(ch[0]));
        assertNoCompletion(ch[0], Duration.ofMillis(100));
        assertEquals(checksum(source, 0, 8192), checksum(target, 0, 8192), "both writes are placed");
    }

    @Test
    void batchCompletesInOrder() throws Exception {
        Channel[] ch = connectedPair();
        int piece = 64 * 1024;
        int count = 8;
        MemorySegment source = allocate((long) piece * count);
        fillPattern(source, 0, (long) piece * count, 8);
        MemorySegment target = allocate((long) piece * count);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(responder(), target, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        List<WorkRequest> batch = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            batch.add(WorkRequest.write(100 + i, sge(src, (long) i * piece, piece),
                    dst.address() + (long) i * piece, dst.rkey()));
        }

        BatchResult result = ch[0].submit(batch, Duration.ofSeconds(30)).get(60, TimeUnit.SECONDS);

        assertTrue(result.isSuccess(), () -> "batch failed: " + result);
        assertEquals((long) piece * count, result.bytesTransferred());
        for (int i = 0; i < count; i++) {
            assertEquals(100 + i, result.completions().get(i).wrId());
        }
        assertEquals(checksum(source, 0, (long) piece * count), checksum(target, 0, (long) piece * count));
        assertNoCompletion(ch[0], Duration.ofMillis(50)); // batch completions never reach poll
    }

    @Test
    void batchReportsFirstFailureAndFlushesTheRest() throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment source = allocate(4096);
        MemorySegment target = allocate(4096);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(responder(), target, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        List<WorkRequest> batch = List.of(
                WorkRequest.write(1, sge(src, 0, 1024), dst.address(), dst.rkey()),
                WorkRequest.write(2, sge(src, 0, 1024), dst.address(), wrongRkey(dst)),
                WorkRequest.write(3, sge(src, 0, 1024), dst.address() + 1024, dst.rkey()));

        BatchResult result = ch[0].submit(batch, Duration.ofSeconds(30)).get(60, TimeUnit.SECONDS);

        assertFalse(result.timedOut());
        assertEquals(WcStatus.SUCCESS, result.completions().get(0).status());
        assertEquals(WcStatus.REM_ACCESS_ERR, result.completions().get(1).status());
        assertEquals(WcStatus.WR_FLUSH_ERR, result.completions().get(2).status());
        assertEquals(2, result.firstFailure().orElseThrow().wrId());
        assertEquals(ChannelState.ERROR, ch[0].state());
    }

    @Test
    void manyChannelsInParallel() throws Exception {
        int channels = parallelChannels();
        int size = MIB;
        List<Channel[]> pairs = new ArrayList<>();
        for (int i = 0; i < channels; i++) {
            Channel a = closeLater(requester().openChannel(channelOptions()));
            Channel b = closeLater(responder().openChannel(channelOptions()));
            pairs.add(new Channel[] {a, b});
        }
        MemorySegment sources = allocate((long) size * channels);
        MemorySegment targets = allocate((long) size * channels);
        MemorySegment backs = allocate((long) size * channels);
        fillPattern(sources, 0, (long) size * channels, 64);
        MemoryRegion src = register(requester(), sources, Access.LOCAL_WRITE);
        MemoryRegion dst = register(responder(), targets, Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ);
        MemoryRegion back = register(requester(), backs, Access.LOCAL_WRITE);

        try (ExecutorService pool = Executors.newFixedThreadPool(channels)) {
            List<Future<?>> work = new ArrayList<>();
            for (int i = 0; i < channels; i++) {
                int n = i;
                Channel[] pair = pairs.get(i);
                work.add(pool.submit(() -> {
                    connectBoth(pair[0], pair[1]);
                    long at = (long) n * size;
                    BatchResult w = pair[0].submit(List.of(
                            WorkRequest.write(n, sge(src, at, size), dst.address() + at, dst.rkey())),
                            Duration.ofSeconds(60)).get();
                    assertTrue(w.isSuccess(), () -> "write on channel " + n + ": " + w);
                    BatchResult r = pair[0].submit(List.of(
                            WorkRequest.read(n, sge(back, at, size), dst.address() + at, dst.rkey())),
                            Duration.ofSeconds(60)).get();
                    assertTrue(r.isSuccess(), () -> "read on channel " + n + ": " + r);
                    return null;
                }));
            }
            for (Future<?> f : work) {
                f.get(120, TimeUnit.SECONDS);
            }
        }
        for (int i = 0; i < channels; i++) {
            long at = (long) i * size;
            assertEquals(checksum(sources, at, size), checksum(backs, at, size), "channel " + i);
        }
    }

    // ------------------------------------------------------------------ remote access checks

    private static int wrongRkey(MemoryRegion region) {
        return region.rkey() ^ 0x0101_0101;
    }

    /** Posts {@code request} on a fresh pair, expects {@code status}, ERROR, and WR_FLUSH_ERR for the next request. */
    private void expectFailureThenFlush(Channel[] ch, WorkRequest request, WcStatus status, WorkRequest next)
            throws Exception {
        ch[0].post(request);
        Completion c = awaitCompletion(ch[0]);
        assertEquals(request.wrId(), c.wrId());
        assertEquals(status, c.status(), () -> "completion " + c);
        assertEquals(0, c.byteLength());
        assertEquals(ChannelState.ERROR, ch[0].state(), "a failed request puts the channel in ERROR");
        ch[0].post(next);
        Completion flushed = awaitCompletion(ch[0]);
        assertEquals(next.wrId(), flushed.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
    }

    @Test
    void badRkeyIsRefusedAndLaterWorkFlushed() throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment source = allocate(4096);
        fillPattern(source, 0, 4096, 1);
        MemorySegment target = allocate(4096);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(responder(), target, Access.LOCAL_WRITE, Access.REMOTE_WRITE);

        expectFailureThenFlush(ch,
                WorkRequest.write(30, sge(src, 0, 4096), dst.address(), wrongRkey(dst)),
                WcStatus.REM_ACCESS_ERR,
                WorkRequest.write(31, sge(src, 0, 4096), dst.address(), dst.rkey()));
        assertTrue(allBytesAre(target, 0, 4096, (byte) 0), "a refused write must not touch memory");
        awaitState(ch[1], ChannelState.ERROR);
    }

    @Test
    void badRkeyOnReadIsRefused() throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment remote = allocate(4096);
        MemorySegment local = allocate(4096);
        MemoryRegion theirs = register(responder(), remote, Access.LOCAL_WRITE, Access.REMOTE_READ);
        MemoryRegion mine = register(requester(), local, Access.LOCAL_WRITE);
        local.fill((byte) 7);

        expectFailureThenFlush(ch,
                WorkRequest.read(32, sge(mine, 0, 4096), theirs.address(), wrongRkey(theirs)),
                WcStatus.REM_ACCESS_ERR,
                WorkRequest.read(33, sge(mine, 0, 4096), theirs.address(), theirs.rkey()));
        assertTrue(allBytesAre(local, 0, 4096, (byte) 7), "a refused read must not touch local memory");
    }

    @Test
    void writePastTheEndIsRefused() throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment source = allocate(4096);
        MemorySegment target = allocate(4096);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(responder(), target, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        source.fill((byte) 1);

        expectFailureThenFlush(ch,
                WorkRequest.write(34, sge(src, 0, 16), dst.address() + dst.length() - 8, dst.rkey()),
                WcStatus.REM_ACCESS_ERR,
                WorkRequest.write(35, sge(src, 0, 16), dst.address(), dst.rkey()));
        assertTrue(allBytesAre(target, 0, 4096, (byte) 0), "no byte of an out-of-bounds write may land");
    }

    @Test
    void writeBelowTheStartIsRefused() throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment source = allocate(4096);
        MemorySegment target = allocate(4096);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(responder(), target, Access.LOCAL_WRITE, Access.REMOTE_WRITE);

        expectFailureThenFlush(ch,
                WorkRequest.write(36, sge(src, 0, 16), dst.address() - 8, dst.rkey()),
                WcStatus.REM_ACCESS_ERR,
                WorkRequest.write(37, sge(src, 0, 16), dst.address(), dst.rkey()));
    }

    @Test
    void readPastTheEndIsRefused() throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment remote = allocate(4096);
        MemorySegment local = allocate(8192);
        MemoryRegion theirs = register(responder(), remote, Access.LOCAL_WRITE, Access.REMOTE_READ);
        MemoryRegion mine = register(requester(), local, Access.LOCAL_WRITE);

        expectFailureThenFlush(ch,
                WorkRequest.read(38, sge(mine, 0, 4097), theirs.address(), theirs.rkey()),
                WcStatus.REM_ACCESS_ERR,
                WorkRequest.read(39, sge(mine, 0, 16), theirs.address(), theirs.rkey()));
    }

    @Test
    void writeWithoutRemoteWriteAccessIsRefused() throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment source = allocate(4096);
        MemorySegment target = allocate(4096);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion readOnly = register(responder(), target, Access.LOCAL_WRITE, Access.REMOTE_READ);
        source.fill((byte) 3);

        expectFailureThenFlush(ch,
                WorkRequest.write(40, sge(src, 0, 64), readOnly.address(), readOnly.rkey()),
                WcStatus.REM_ACCESS_ERR,
                WorkRequest.write(41, sge(src, 0, 64), readOnly.address(), readOnly.rkey()));
        assertTrue(allBytesAre(target, 0, 4096, (byte) 0));
    }

    @Test
    void readWithoutRemoteReadAccessIsRefused() throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment remote = allocate(4096);
        MemorySegment local = allocate(4096);
        MemoryRegion writeOnly = register(responder(), remote, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        MemoryRegion mine = register(requester(), local, Access.LOCAL_WRITE);

        expectFailureThenFlush(ch,
                WorkRequest.read(42, sge(mine, 0, 64), writeOnly.address(), writeOnly.rkey()),
                WcStatus.REM_ACCESS_ERR,
                WorkRequest.read(43, sge(mine, 0, 64), writeOnly.address(), writeOnly.rkey()));
    }

    @Test
    void closedRegionIsRefused() throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment source = allocate(4096);
        MemorySegment target = allocate(4096);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = responder().register(target, Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        dst.close();
        dst.close(); // twice is harmless
        assertFalse(dst.isOpen());
        source.fill((byte) 9);

        expectFailureThenFlush(ch,
                WorkRequest.write(44, sge(src, 0, 64), dst.address(), dst.rkey()),
                WcStatus.REM_ACCESS_ERR,
                WorkRequest.write(45, sge(src, 0, 64), dst.address(), dst.rkey()));
        assertTrue(allBytesAre(target, 0, 4096, (byte) 0));
    }

    // ------------------------------------------------------------------ receives

    @Test
    void sendWithoutReceiveIsReceiverNotReady() throws Exception {
        Assumptions.assumeTrue(supportsReceiverNotReadyFailure(), "transport retries RNR forever");
        Channel[] ch = connectedPair();
        MemorySegment source = allocate(64);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);

        expectFailureThenFlush(ch, WorkRequest.send(50, sge(src, 0, 64)), WcStatus.RNR_RETRY_EXC_ERR,
                WorkRequest.send(51, sge(src, 0, 64)));
    }

    @Test
    void writeWithImmediateWithoutReceiveIsReceiverNotReady() throws Exception {
        Assumptions.assumeTrue(supportsReceiverNotReadyFailure(), "transport retries RNR forever");
        Channel[] ch = connectedPair();
        MemorySegment source = allocate(64);
        MemorySegment target = allocate(64);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(responder(), target, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        source.fill((byte) 4);

        expectFailureThenFlush(ch,
                WorkRequest.writeWithImm(52, sge(src, 0, 64), dst.address(), dst.rkey(), 1),
                WcStatus.RNR_RETRY_EXC_ERR,
                WorkRequest.write(53, sge(src, 0, 64), dst.address(), dst.rkey()));
    }

    @Test
    void receiveTooShortFailsBothSides() throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment source = allocate(64);
        MemorySegment target = allocate(64);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(responder(), target, Access.LOCAL_WRITE);
        ch[1].post(WorkRequest.recv(80, sge(dst, 0, 8)));

        ch[0].post(WorkRequest.send(54, sge(src, 0, 16)));
        Completion sent = awaitCompletion(ch[0]);
        Completion received = awaitCompletion(ch[1]);

        assertEquals(WcStatus.REM_INV_REQ_ERR, sent.status(), () -> "requester: " + sent);
        assertEquals(80, received.wrId());
        assertEquals(WcStatus.LOC_LEN_ERR, received.status(), () -> "responder: " + received);
        assertEquals(ChannelState.ERROR, ch[0].state());
        awaitState(ch[1], ChannelState.ERROR);
    }

    // ------------------------------------------------------------------ time, keys, states

    @Test
    void batchPastItsDeadlineTimesOut() throws Exception {
        Channel[] ch = connectedPair();
        // nothing will ever SEND to this receive, so the batch cannot finish in time on any transport
        BatchResult result = ch[0].submit(List.of(WorkRequest.recv(60)), Duration.ofMillis(100))
                .get(30, TimeUnit.SECONDS);

        assertTrue(result.timedOut());
        assertFalse(result.isSuccess());
        assertEquals(1, result.completions().size());
        assertEquals(60, result.completions().get(0).wrId());
        assertEquals(WcStatus.RESP_TIMEOUT_ERR, result.completions().get(0).status());
        assertEquals(ChannelState.ERROR, ch[0].state());

        MemorySegment source = allocate(64);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        ch[0].post(WorkRequest.send(61, sge(src, 0, 64)));
        Completion flushed = awaitCompletion(ch[0]);
        assertEquals(WcStatus.WR_FLUSH_ERR, flushed.status());
    }

    @Test
    void wrongKeyIsRefusedAtConnect() throws Exception {
        Assumptions.assumeTrue(supportsWrongKeyAtConnect(), "endpoints of this transport carry no key");
        Channel a = closeLater(requester().openChannel(channelOptions()));
        Channel b = closeLater(responder().openChannel(channelOptions()));
        EndpointInfo forged = withWrongKey(b.localEndpoint());
        Assumptions.assumeTrue(forged != null, "no way to forge a key for " + b.localEndpoint());

        TransportException e = assertThrows(TransportException.class, () -> a.connect(forged));

        assertEquals(TransportError.AUTHENTICATION_FAILED, e.error());
        assertEquals(ChannelState.INIT, a.state(), "a refused connect changes nothing");
        assertEquals(ChannelState.INIT, b.state(), "the refusing side is untouched");
        // the genuine key still works afterwards
        connectBoth(a, b);
    }

    @Test
    void postsBeforeConnectAreRefusedExceptReceives() throws Exception {
        Channel a = closeLater(requester().openChannel(channelOptions()));
        MemorySegment memory = allocate(64);
        MemoryRegion region = register(requester(), memory, Access.LOCAL_WRITE);

        TransportException e = assertThrows(TransportException.class,
                () -> a.post(WorkRequest.write(1, sge(region, 0, 8), 4096, 1)));
        assertEquals(TransportError.WRONG_STATE, e.error());
        e = assertThrows(TransportException.class, () -> a.post(WorkRequest.send(2, sge(region, 0, 8))));
        assertEquals(TransportError.WRONG_STATE, e.error());
        a.post(WorkRequest.recv(3, sge(region, 0, 64)));
        assertEquals(ChannelState.INIT, a.state());
    }

    @Test
    void endpointOfAnotherKindIsRefused() throws Exception {
        Channel a = closeLater(requester().openChannel(channelOptions()));
        EndpointInfo foreign = a.localEndpoint() instanceof EndpointInfo.Tcp
                ? new EndpointInfo.Verbs(1, 1, Gid.ZERO, 1, 1, Mtu.MTU_1024)
                : new EndpointInfo.Tcp(new InetSocketAddress("127.0.0.1", 1), 1, new byte[16]);

        TransportException e = assertThrows(TransportException.class, () -> a.connect(foreign));
        assertEquals(TransportError.INVALID_ARGUMENT, e.error());
        assertEquals(ChannelState.INIT, a.state());
    }

    @Test
    void badRegistrationsAreRefused() {
        Transport t = requester();
        TransportException e = assertThrows(TransportException.class,
                () -> t.register(MemorySegment.ofArray(new byte[64]), Set.of(Access.LOCAL_WRITE)));
        assertEquals(TransportError.INVALID_ARGUMENT, e.error(), "heap segment");
        MemorySegment empty = allocate(64).asSlice(0, 0);
        e = assertThrows(TransportException.class, () -> t.register(empty, Set.of(Access.LOCAL_WRITE)));
        assertEquals(TransportError.INVALID_ARGUMENT, e.error(), "zero-length segment");
        MemorySegment memory = allocate(64);
        e = assertThrows(TransportException.class, () -> t.register(memory, Set.of()));
        assertEquals(TransportError.INVALID_ARGUMENT, e.error(), "empty access set");
    }

    @Test
    void closeFlushesOutstandingWork() throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment memory = allocate(64);
        MemoryRegion region = register(requester(), memory, Access.LOCAL_WRITE);
        CompletableFuture<BatchResult> pending =
                ch[0].submit(List.of(WorkRequest.recv(70, sge(region, 0, 64))), Duration.ofSeconds(60));

        ch[0].close();
        ch[0].close(); // twice is harmless

        BatchResult result = pending.get(30, TimeUnit.SECONDS);
        assertFalse(result.timedOut());
        assertEquals(WcStatus.WR_FLUSH_ERR, result.completions().get(0).status());
        assertEquals(ChannelState.CLOSED, ch[0].state());
        TransportException e = assertThrows(TransportException.class,
                () -> ch[0].post(WorkRequest.recv(71, sge(region, 0, 64))));
        assertEquals(TransportError.CLOSED, e.error(), "posting on a closed channel");
    }

    // ------------------------------------------------------------------ reset

    @Test
    void resetAfterAFailureConnectsAgainWithTheSameEndpoints() throws Exception {
        Channel[] ch = connectedPair();
        long[] ids = {ch[0].id(), ch[1].id()};
        EndpointInfo ea = ch[0].localEndpoint();
        EndpointInfo eb = ch[1].localEndpoint();
        MemorySegment source = allocate(4096);
        fillPattern(source, 0, 4096, 90);
        MemorySegment target = allocate(4096);
        MemoryRegion src = register(requester(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(responder(), target, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        ch[0].post(WorkRequest.write(90, sge(src, 0, 4096), dst.address(), wrongRkey(dst)));
        assertEquals(WcStatus.REM_ACCESS_ERR, awaitCompletion(ch[0]).status());
        assertEquals(ChannelState.ERROR, ch[0].state());

        ch[0].reset();

        assertEquals(ChannelState.INIT, ch[0].state());
        assertEquals(ids[0], ch[0].id());
        assertEquals(ea, ch[0].localEndpoint(), "the endpoint the peer was given stays valid");
        assertNull(ch[0].remoteEndpoint());
        // the peer saw the connection end, or still points at a queue pair that went back to INIT: as an RC
        // client retrying against the same server, it resets its own channel and both connect again
        ch[1].reset();
        assertEquals(ChannelState.INIT, ch[1].state());
        assertEquals(ids[1], ch[1].id());
        assertEquals(eb, ch[1].localEndpoint());
        connectBoth(ch[0], ea, ch[1], eb);
        assertEquals(eb, ch[0].remoteEndpoint());
        assertEquals(ea, ch[1].remoteEndpoint());

        ch[0].post(WorkRequest.write(91, sge(src, 0, 4096), dst.address(), dst.rkey()));
        assertEquals(Completion.success(91, WcOpcode.RDMA_WRITE, 4096), awaitCompletion(ch[0]));
        assertEquals(checksum(source, 0, 4096), checksum(target, 0, 4096), "the write after the reset landed");
    }

    @Test
    void resetFlushesOutstandingWorkBeforeItReturns() throws Exception {
        Channel[] ch = connectedPair();
        MemorySegment memory = allocate(128);
        MemoryRegion region = register(requester(), memory, Access.LOCAL_WRITE);
        // nothing will ever fill these receives, so they are still outstanding when the reset comes
        CompletableFuture<BatchResult> pending =
                ch[0].submit(List.of(WorkRequest.recv(92, sge(region, 0, 64))), Duration.ofSeconds(60));
        ch[0].post(WorkRequest.recv(93, sge(region, 64, 64)));

        ch[0].reset();

        assertTrue(pending.isDone(), "a batch future is complete when reset returns");
        BatchResult result = pending.get();
        assertFalse(result.timedOut());
        assertEquals(92, result.completions().get(0).wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, result.completions().get(0).status());
        Completion[] out = new Completion[2];
        assertEquals(1, ch[0].poll(out), "the flushed receive is there to poll when reset returns");
        assertEquals(93, out[0].wrId());
        assertEquals(WcStatus.WR_FLUSH_ERR, out[0].status());
        assertEquals(ChannelState.INIT, ch[0].state());

        // the queues work again once both ends are connected anew
        ch[1].reset();
        connectBoth(ch[0], ch[1]);
        MemorySegment source = allocate(64);
        fillPattern(source, 0, 64, 94);
        MemoryRegion src = register(responder(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(requester(), allocate(64), Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        ch[0].post(WorkRequest.recv(94));
        ch[1].post(WorkRequest.writeWithImm(95, sge(src, 0, 64), dst.address(), dst.rkey(), 0x5EED));
        assertEquals(Completion.success(95, WcOpcode.RDMA_WRITE, 64), awaitCompletion(ch[1]));
        assertEquals(new Completion(94, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, 64, true, 0x5EED, 0),
                awaitCompletion(ch[0]));
        assertEquals(checksum(source, 0, 64), checksum(dst.segment(), 0, 64));
    }

    @Test
    void resetBeforeConnectChangesNothing() throws Exception {
        Channel a = closeLater(requester().openChannel(channelOptions()));
        Channel b = closeLater(responder().openChannel(channelOptions()));
        EndpointInfo ea = a.localEndpoint();
        a.post(WorkRequest.recv(96));

        a.reset();
        a.reset();

        assertEquals(ChannelState.INIT, a.state());
        assertEquals(ea, a.localEndpoint());
        assertNull(a.remoteEndpoint());
        assertEquals(0, a.poll(new Completion[1]), "nothing was flushed");
        // the receive posted before the resets is still posted: the peer's WRITE_WITH_IMM consumes it
        connectBoth(a, b);
        MemorySegment source = allocate(64);
        fillPattern(source, 0, 64, 96);
        MemoryRegion src = register(responder(), source, Access.LOCAL_WRITE);
        MemoryRegion dst = register(requester(), allocate(64), Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        b.post(WorkRequest.writeWithImm(97, sge(src, 0, 64), dst.address(), dst.rkey(), 0x0097));
        assertEquals(Completion.success(97, WcOpcode.RDMA_WRITE, 64), awaitCompletion(b));
        assertEquals(new Completion(96, WcStatus.SUCCESS, WcOpcode.RECV_RDMA_WITH_IMM, 64, true, 0x0097, 0),
                awaitCompletion(a));
    }

    @Test
    void resetOfAClosedChannelIsRefused() throws Exception {
        Channel a = closeLater(requester().openChannel(channelOptions()));
        a.close();

        TransportException e = assertThrows(TransportException.class, a::reset);

        assertEquals(TransportError.CLOSED, e.error());
        assertEquals(ChannelState.CLOSED, a.state());
    }

    @Test
    void regionDescribesItself() throws Exception {
        MemorySegment memory = allocate(8192);
        MemoryRegion region = register(requester(), memory, Access.LOCAL_WRITE, Access.REMOTE_READ);
        assertTrue(region.isOpen());
        assertEquals(8192, region.length());
        assertEquals(EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ), region.access());
        assertEquals(requester().name(), region.transportName());
        assertEquals(memory.address(), region.segment().address());
        assertArrayEquals(new long[] {region.address(), region.length(), region.rkey()},
                new long[] {new RemoteRegion(region.address(), region.length(), region.rkey()).address(), new RemoteRegion(region.address(), region.length(), region.rkey()).length(), new RemoteRegion(region.address(), region.length(), region.rkey()).rkey()});
    }
}
