package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.ObjectAccess;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.PrepareResult;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.ReadyResult;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionInfo;
import org.objrdma.api.session.SessionState;
import org.objrdma.api.session.StagingSource;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.staging.internal.BufferPool;
import org.objrdma.staging.internal.StagingSettings;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * Sessions larger than the staging pool's largest buffer (64 KiB here) through the real TCP transport and staging
 * pool: a GET moves in chunks through two pool buffers with the first chunk staged at PREPARE and the rest read from
 * a {@link StagingSource} during READY (the client sees one WRITE_WITH_IMM completion, of the last chunk); a Busy
 * GET re-reads its first chunk on the retry; a chunked READY without a source is ARG and changes nothing; a PUT gets
 * one dedicated window of exactly its size. The same through the use cases of the S3 routes ({@code SessionUseCases}):
 * READY reads the later chunks from the source PREPARE was given, a PUT is stored through the caller's
 * {@link ObjectAccess}, a revoked permission cancels, a failing source or store is carried back, and a refused
 * PREPARE names the limit but not the principal.
 */
class ChunkedGetTest {
    private static final PrincipalId ALICE = PrincipalId.fromCanonical("alice:secret");
    private static final int COOKIE = 0x0c0f_fee1;
    private static final int BUFFER = 64 << 10;
    private static final int SIZE = 3 * BUFFER + 1;
    private static final String ETAG = "\"e-chunked\"";

    private TcpTransport server;
    private TcpTransport clientTransport;
    private BufferPool pool;
    private SessionCore core;
    private RecordingListener events;
    private Arena arena;
    private final byte[] object = new byte[SIZE + 100];
    /** The offsets the source was asked for, in order. */
    private final List<Long> reads = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        new Random(7).nextBytes(object);
        server = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        clientTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        pool = BufferPool.create(new StagingSettings(4096, BUFFER, 64L * BUFFER, 16L * BUFFER, 256, 64, 4,
                Duration.ofSeconds(60), Duration.ZERO, Duration.ofSeconds(60), Duration.ofSeconds(5), false,
                Duration.ofSeconds(5), true), server, () -> Telemetry.NOOP);
        core = new SessionCore(SessionSettings.builder().allowAddresses(Harness.LOOPBACK).execTimeoutMs(5_000).build(),
                MonotonicClock.system(), RandomSource.secure());
        core.useTransport(server);
        core.useStagingPool(pool);
        events = new RecordingListener();
        core.addTerminalListener(events);
        core.startReaper();
        arena = Arena.ofShared();
    }

    @AfterEach
    void stop() throws InterruptedException {
        Harness.await("staging returned", () -> pool.stats().borrowed() == 0);
        assertEquals(new LimitAccounting.Usage(0, 0, 0), core.usage());
        ShutdownReport report = core.shutdown(Duration.ofSeconds(2));
        assertTrue(report.clean(), report.toString());
        pool.close();
        clientTransport.close();
        server.close();
        arena.close();
    }

    /** The object's bytes from {@code offset}, as a store would read them. */
    private final StagingSource source = (offset, dst) -> {
        reads.add(offset);
        MemorySegment.copy(MemorySegment.ofArray(object), offset, dst, 0, dst.byteSize());
        return ETAG;
    };

    private TcpTestClient client() throws Exception {
        return new TcpTestClient(arena, clientTransport, SIZE, ALICE, COOKIE);
    }

    /** A published GET of {@code SIZE} bytes at {@code offset}, its first chunk staged as a gateway does. */
    private SessionId preparedGet(TcpTestClient client, long offset) {
        PrepareResponse prep = core.prepare(new PrepareRequest(ALICE, Op.GET, "/bucket/big", offset, SIZE, 0x123, COOKIE,
                client.preparedEndpoint(), new RemoteRegion(client.region.address(), SIZE, client.region.rkey())))
                .orElseThrow();
        SessionId id = prep.sessionId();
        assertEquals(2, pool.stats().borrowed(), "two chunk buffers");
        assertEquals(2L * BUFFER, pool.stats().bytesBorrowed(), "the pool lent two buffers, not the size");
        assertEquals(new LimitAccounting.Usage(1, 1, 1), core.usage(), "one session, one queue pair");
        SessionBuffer lease = core.borrowStaging(id).orElseThrow();
        assertEquals(BUFFER, lease.buffer().byteSize(), "the first chunk is what PREPARE stages");
        MemorySegment.copy(MemorySegment.ofArray(object), offset, lease.buffer(), 0, BUFFER);
        assertEquals(RcStatus.OK, core.finishStaging(id, lease.handle(), true, BUFFER, ETAG, ""));
        assertEquals(RcStatus.OK, core.finishPrepare(id, true));
        return id;
    }

    private void assertDelivered(TcpTestClient client, long offset, CompletableFuture<BatchResult> arrival) throws Exception {
        Completion c = arrival.get(10, TimeUnit.SECONDS).completions().get(0);
        assertEquals(WcStatus.SUCCESS, c.status());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, c.opcode());
        assertEquals(COOKIE, c.immediate());
        assertEquals(1, c.byteLength(), "the completion is the last chunk's: the one byte after three buffers");
        byte[] want = java.util.Arrays.copyOfRange(object, (int) offset, (int) offset + SIZE);
        assertArrayEquals(want, client.memory.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void aGetMovesInChunksThroughTwoBuffersAndCompletesOnce() throws Exception {
        try (TcpTestClient client = client()) {
            SessionId id = preparedGet(client, 99);
            CompletableFuture<BatchResult> arrival = client.channel.submit(List.of(WorkRequest.recv(5)),
                    Duration.ofSeconds(10));
            ReadyResponse r = core.readyTransfer(client.ready(id), source).orElseThrow();
            assertEquals(ReadyOutcome.OK, r.outcome());
            assertEquals(SIZE, r.bytesTransferred());
            assertEquals(ETAG, r.etag());
            assertEquals(List.of(99L + BUFFER, 99L + 2 * BUFFER, 99L + 3 * BUFFER), reads, "the rest, in order");
            assertDelivered(client, 99, arrival);
            assertEquals(RcStatus.OK, core.finishFinal(id));
            assertEquals(TerminalReason.COMPLETED, events.only(id).reason());
            assertEquals(SIZE, events.only(id).bytes());
        }
    }

    @Test
    void aBusyChunkedGetReadsItsFirstChunkAgainOnTheRetry() throws Exception {
        try (TcpTestClient client = client()) {
            SessionId id = preparedGet(client, 0);
            // no receive posted: the last chunk's WRITE_WITH_IMM meets receiver-not-ready
            assertEquals(ReadyOutcome.BUSY, core.readyTransfer(client.ready(id), source).orElseThrow().outcome());
            client.channel.reset();
            CompletableFuture<BatchResult> arrival = client.channel.submit(List.of(WorkRequest.recv(8)),
                    Duration.ofSeconds(10));
            reads.clear();
            client.memory.fill((byte) 0);
            assertEquals(ReadyOutcome.OK, core.readyTransfer(client.ready(id), source).orElseThrow().outcome());
            assertEquals(List.of(0L, (long) BUFFER, 2L * BUFFER, 3L * BUFFER), reads,
                    "the first buffer was overwritten by the first attempt: read again");
            assertDelivered(client, 0, arrival);
            assertEquals(RcStatus.OK, core.finishFinal(id));
        }
    }

    @Test
    void aChunkedReadyWithoutASourceIsArgAndChangesNothing() throws Exception {
        try (TcpTestClient client = client()) {
            SessionId id = preparedGet(client, 0);
            Optional<SessionDetail> before = core.detail(id);
            assertEquals(RcStatus.ARG, core.readyTransfer(client.ready(id)).status());
            assertEquals(before, core.detail(id));
            assertEquals(RcStatus.OK, core.cancel(id, ALICE));
            assertEquals(TerminalReason.CANCELLED, events.only(id).reason());
        }
    }

    @Test
    void aSourceThatFailsOrReadsAnotherVersionEndsTheSessionWithAWireFailure() throws Exception {
        StagingSource[] bad = {
            (offset, dst) -> {
                throw new java.io.IOException("the medium failed");
            },
            (offset, dst) -> "\"another-version\"",
        };
        for (StagingSource s : bad) {
            try (TcpTestClient client = client()) {
                SessionId id = preparedGet(client, 0);
                client.channel.submit(List.of(WorkRequest.recv(9)), Duration.ofSeconds(10));
                var failed = core.readyTransfer(client.ready(id), s);
                assertEquals(RcStatus.WIRE, failed.status());
                assertEquals(ReadyOutcome.WIRE_FAIL, failed.failureDetail().orElseThrow().outcome());
                assertEquals(TerminalReason.FAILED, events.only(id).reason());
                Harness.await("both buffers back", () -> pool.stats().borrowed() == 0);
            }
        }
    }

    @Test
    void aPutLargerThanABufferGetsOneDedicatedWindowOfItsSize() throws Exception {
        try (TcpTestClient client = client()) {
            MemorySegment.copy(MemorySegment.ofArray(object), 0, client.memory, 0, SIZE);
            PrepareResponse prep = core.prepare(new PrepareRequest(ALICE, Op.PUT, "/bucket/up", 0, SIZE, 0x456, COOKIE,
                    client.preparedEndpoint(), null)).orElseThrow();
            assertEquals(SIZE, prep.stagingRegion().length());
            assertEquals(SIZE, pool.stats().bytesBorrowed(), "exactly its size");
            assertEquals(RcStatus.OK, core.finishPrepare(prep.sessionId(), true));
            CompletableFuture<ReadyResponse> ready = CompletableFuture.supplyAsync(
                    () -> core.readyTransfer(client.ready(prep.sessionId())).orElseThrow());
            Harness.await("READY claimed the session", () -> core.detail(prep.sessionId())
                    .map(d -> d.state() != org.objrdma.api.session.SessionState.PREPARED).orElse(true));
            client.channel.connect(prep.serverEndpoint());
            WorkRequest write = WorkRequest.writeWithImm(6, new ScatterGatherEntry(client.region, 0, SIZE),
                    prep.stagingRegion().address(), prep.stagingRegion().rkey(), COOKIE);
            assertEquals(WcStatus.SUCCESS, client.channel.submit(List.of(write), Duration.ofSeconds(10))
                    .get(10, TimeUnit.SECONDS).completions().get(0).status());
            assertEquals(ReadyOutcome.OK, ready.get(10, TimeUnit.SECONDS).outcome());
            SessionBuffer view = core.getPutData(prep.sessionId()).orElseThrow();
            assertArrayEquals(java.util.Arrays.copyOf(object, SIZE), view.buffer().toArray(ValueLayout.JAVA_BYTE));
            assertEquals(RcStatus.OK, core.finishPut(prep.sessionId(), view.handle(), true, "\"e2\"", ""));
            assertEquals(TerminalReason.COMPLETED, events.only(prep.sessionId()).reason());
        }
    }

    private static PrepareRequest get(TcpTestClient client, String target) {
        return new PrepareRequest(ALICE, Op.GET, target, 0, SIZE, 0x123, COOKIE, client.preparedEndpoint(),
                new RemoteRegion(client.region.address(), SIZE, client.region.rkey()));
    }

    private static PrepareRequest put(TcpTestClient client, String target, long size) {
        return new PrepareRequest(ALICE, Op.PUT, target, 0, size, 0x456, COOKIE, client.preparedEndpoint(), null);
    }

    // ---- the same through the use cases of the S3 routes (SessionUseCases): one call per route ----------------

    /** Lets every access and keeps what a PUT stored. */
    private static final class Store implements ObjectAccess {
        final AtomicReference<byte[]> stored = new AtomicReference<>();
        volatile boolean permit = true;
        volatile Exception storeFailure;

        @Override
        public boolean permits(SessionInfo session) {
            return permit;
        }

        @Override
        public String store(SessionInfo session, MemorySegment bytes) throws Exception {
            if (storeFailure != null) {
                throw storeFailure;
            }
            stored.set(bytes.toArray(ValueLayout.JAVA_BYTE));
            return "\"stored-" + session.target().length() + "\"";
        }
    }

    @Test
    void useCasesMoveAChunkedGetInOnePrepareAndOneReadyThatReadsTheSourcePrepareWasGiven() throws Exception {
        try (TcpTestClient client = client()) {
            PrepareResult prepared = core.prepareGet(get(client, "/bucket/big"), source);
            assertTrue(prepared.isOk(), prepared.toString());
            SessionId id = prepared.response().sessionId();
            assertEquals(List.of(0L), reads, "PREPARE staged the first chunk");
            CompletableFuture<BatchResult> arrival = client.channel.submit(List.of(WorkRequest.recv(5)),
                    Duration.ofSeconds(10));
            ReadyResult r = core.ready(client.ready(id), new Store());
            assertTrue(r.isOk(), r.toString());
            assertEquals(Op.GET, r.op());
            assertEquals(ReadyOutcome.OK, r.response().outcome());
            assertEquals(SIZE, r.response().bytesTransferred());
            assertEquals(ETAG, r.response().etag());
            assertEquals(List.of(0L, (long) BUFFER, 2L * BUFFER, 3L * BUFFER), reads,
                    "READY read the rest from the source given at PREPARE");
            Completion c = arrival.get(10, TimeUnit.SECONDS).completions().get(0);
            assertEquals(WcStatus.SUCCESS, c.status());
            assertArrayEquals(Arrays.copyOf(object, SIZE), client.memory.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(TerminalReason.COMPLETED, events.only(id).reason(), "READY finalized the GET itself");
        }
    }

    @Test
    void aPutIsOnePrepareAndOneReadyThatStoresTheBytesTheClientWrote() throws Exception {
        try (TcpTestClient client = client()) {
            int size = BUFFER;
            PrepareResult prepared = core.preparePut(put(client, "/bucket/up", size));
            assertTrue(prepared.isOk(), prepared.toString());
            SessionId id = prepared.response().sessionId();
            Store store = new Store();
            CompletableFuture<ReadyResult> ready = CompletableFuture.supplyAsync(() -> core.ready(client.ready(id), store));
            Harness.await("READY claimed the session", () -> core.detail(id)
                    .map(d -> d.state() != SessionState.PREPARED).orElse(true));
            client.channel.connect(prepared.response().serverEndpoint());
            client.memory.asSlice(0, size).copyFrom(MemorySegment.ofArray(Arrays.copyOf(object, size)));
            WorkRequest write = WorkRequest.writeWithImm(6, new ScatterGatherEntry(client.region, 0, size),
                    prepared.response().stagingRegion().address(), prepared.response().stagingRegion().rkey(), COOKIE);
            client.channel.submit(List.of(write), Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
            ReadyResult r = ready.get(10, TimeUnit.SECONDS);
            assertTrue(r.isOk(), r.toString());
            assertEquals("\"stored-10\"", r.response().etag(), "the etag is the one the store answered");
            assertArrayEquals(Arrays.copyOf(object, size), store.stored.get());
            assertEquals(TerminalReason.COMPLETED, events.only(id).reason());
        }
    }

    @Test
    void aStoreFailureAbortsThePutAndIsCarriedBack() throws Exception {
        try (TcpTestClient client = client()) {
            PrepareResult prepared = core.preparePut(put(client, "/bucket/up", 4096));
            SessionId id = prepared.response().sessionId();
            Store store = new Store();
            store.storeFailure = new IOException("disk full");
            CompletableFuture<ReadyResult> ready = CompletableFuture.supplyAsync(() -> core.ready(client.ready(id), store));
            Harness.await("READY claimed the session", () -> core.detail(id)
                    .map(d -> d.state() != SessionState.PREPARED).orElse(true));
            client.channel.connect(prepared.response().serverEndpoint());
            WorkRequest write = WorkRequest.writeWithImm(6, new ScatterGatherEntry(client.region, 0, 4096),
                    prepared.response().stagingRegion().address(), prepared.response().stagingRegion().rkey(), COOKIE);
            client.channel.submit(List.of(write), Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS);
            ReadyResult r = ready.get(10, TimeUnit.SECONDS);
            assertFalse(r.isOk());
            assertSame(store.storeFailure, r.storeFailure());
            assertEquals(TerminalReason.ABORTED, events.only(id).reason());
        }
    }

    @Test
    void aRevokedPermissionCancelsTheSessionBeforeAnyByteMoves() throws Exception {
        try (TcpTestClient client = client()) {
            SessionId id = core.prepareGet(get(client, "/bucket/big"), source).response().sessionId();
            Store store = new Store();
            store.permit = false;
            ReadyResult r = core.ready(client.ready(id), store);
            assertTrue(r.accessRevoked());
            assertEquals(RcStatus.SESSION, r.status());
            assertEquals(TerminalReason.CANCELLED, events.only(id).reason());
            assertEquals(List.of(0L), reads, "nothing read past what PREPARE staged");
        }
    }

    @Test
    void aFailingSourceEndsThePreparedGetAndItsFailureIsCarriedBack() throws Exception {
        IOException gone = new IOException("object vanished");
        try (TcpTestClient client = client()) {
            PrepareResult r = core.prepareGet(get(client, "/bucket/gone"), (offset, dst) -> {
                throw gone;
            });
            assertFalse(r.isOk());
            assertSame(gone, r.sourceFailure());
            assertNull(r.response());
            Harness.await("the session ended", () -> core.liveSessions() == 0);
        }
    }

    @Test
    void aLimitRefusalNamesTheLimitButNotThePrincipal() throws Exception {
        try (TcpTestClient client = client()) {
            // above the pool's largest buffer: one dedicated window, over max.bytes.per.principal (16 buffers)
            PrepareResult staging = core.preparePut(put(client, "/bucket/huge", 17L * BUFFER));
            assertEquals(RcStatus.LIMIT, staging.status());
            assertTrue(staging.reason().startsWith("org.objrdma.staging max.bytes.per.principal "), staging.reason());
            assertFalse(staging.reason().contains(ALICE.toString()), "the principal is a digest of the credentials");
            // the session's deprecated byte keys limit nothing: the pool (16 buffers per principal) is the one budget
            SessionCore tight = new SessionCore(SessionSettings.builder().allowAddresses(Harness.LOOPBACK)
                    .maxStagingBytes(BUFFER).maxUserStagingBytes(BUFFER).build(), MonotonicClock.system(),
                    RandomSource.secure());
            tight.useTransport(server);
            tight.useStagingPool(pool);
            PrepareResult admitted = tight.preparePut(put(client, "/bucket/huger", 3L * BUFFER));
            assertEquals(RcStatus.OK, admitted.status(), admitted.reason());
            assertEquals(1, tight.liveSessions());
            assertTrue(tight.shutdown(Duration.ofSeconds(1)).clean());
            assertEquals(0, tight.liveSessions());
            assertEquals(0, pool.stats().bytesBorrowed(), "the dedicated window went back at shutdown");
            assertEquals(0, core.liveSessions());
        }
    }
}
