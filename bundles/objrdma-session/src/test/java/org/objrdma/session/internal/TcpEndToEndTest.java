package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.SessionState;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.staging.internal.BufferPool;
import org.objrdma.staging.internal.StagingSettings;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * GET and PUT end to end through the real TCP transport and the real staging pool: the server side is a
 * session core on one TCP transport, the client side a second TCP transport in the same process with
 * its own memory agent, doing what an RDMA client does (register memory, open a channel, post a receive
 * or WRITE_WITH_IMM into the staging region the PREPARE answer names).
 */
class TcpEndToEndTest {
    private static final PrincipalId ALICE = PrincipalId.fromCanonical("alice:secret");
    private static final int COOKIE = 0x0bad_cafe;
    private static final int SIZE = 1 << 20;

    private TcpTransport server;
    private TcpTransport clientTransport;
    private BufferPool pool;
    private SessionCore core;
    private RecordingListener events;
    private Arena arena;

    @BeforeEach
    void start() throws Exception {
        server = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        clientTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        pool = BufferPool.create(StagingSettings.defaults(), server, () -> Telemetry.NOOP);
        core = new SessionCore(SessionSettings.builder().allowAddresses(Harness.LOOPBACK).execTimeoutMs(5_000).build(), MonotonicClock.system(),
                RandomSource.secure());
        core.useTransport(server);
        core.useStagingPool(pool);
        events = new RecordingListener();
        core.addTerminalListener(events);
        core.startReaper();
        arena = Arena.ofShared();
    }

    @AfterEach
    void stop() {
        ShutdownReport report = core.shutdown(Duration.ofSeconds(2));
        assertTrue(report.clean(), report.toString());
        pool.close();
        clientTransport.close();
        server.close();
        arena.close();
    }

    /** The client: memory registered with its own TCP transport and one channel. */
    private final class Client implements AutoCloseable {
        final MemorySegment memory = arena.allocate(SIZE, 4096);
        final MemoryRegion region;
        final Channel channel;

        Client() throws Exception {
            region = clientTransport.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            channel = clientTransport.openChannel(ChannelOptions.DEFAULT);
        }

        /** What the client sends at PREPARE: its agent and key; READY names the channel. */
        EndpointInfo preparedEndpoint() {
            EndpointInfo.Tcp mine = (EndpointInfo.Tcp) channel.localEndpoint();
            return new EndpointInfo.Tcp(mine.address(), 0, mine.key());
        }

        ReadyRequest ready(SessionId id) {
            return new ReadyRequest(ALICE, id, COOKIE, channel.id(), null);
        }

        @Override
        public void close() {
            channel.close();
            region.close();
        }
    }

    private static byte[] randomBytes(long seed) {
        byte[] b = new byte[SIZE];
        new Random(seed).nextBytes(b);
        return b;
    }

    private void assertStagingAndChannelsReturned() throws InterruptedException {
        Harness.await("staging returned", () -> pool.stats().borrowed() == 0);
        assertEquals(0, core.liveSessions());
        assertEquals(new LimitAccounting.Usage(0, 0, 0, 0), core.usage());
        Harness.await("server channels closed", () -> server.channelCount() == 0);
    }

    @Test
    void getMovesTheStagedObjectIntoClientMemory() throws Exception {
        try (Client client = new Client()) {
            byte[] object = randomBytes(1);
            PrepareResponse prep = core.prepare(new PrepareRequest(ALICE, Op.GET, "/bucket/big", 0, SIZE, 0x123,
                    COOKIE, client.preparedEndpoint(), new RemoteRegion(client.region.address(), client.region.length(), client.region.rkey()))).orElseThrow();
            SessionId id = prep.sessionId();
            assertEquals(0, prep.stagingRegion().address(), "a GET's PREPARE answer names no server address");
            assertEquals(SessionCore.NO_REMOTE_KEY, prep.stagingRegion().rkey());
            SessionBuffer lease = core.borrowStaging(id).orElseThrow();
            MemorySegment.copy(MemorySegment.ofArray(object), 0, lease.buffer(), 0, SIZE);
            assertEquals(RcStatus.OK, core.finishStaging(id, lease.handle(), true, SIZE, "\"e1\"", ""));
            assertEquals(RcStatus.OK, core.finishPrepare(id, true));

            CompletableFuture<BatchResult> arrival = client.channel.submit(List.of(WorkRequest.recv(5)),
                    Duration.ofSeconds(10));
            ReadyResponse r = core.readyTransfer(client.ready(id)).orElseThrow();
            assertEquals(ReadyOutcome.OK, r.outcome());
            assertEquals(SIZE, r.bytesTransferred());
            assertEquals("\"e1\"", r.etag());

            Completion c = arrival.get(10, TimeUnit.SECONDS).completions().get(0);
            assertEquals(WcStatus.SUCCESS, c.status());
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, c.opcode());
            assertTrue(c.hasImmediate());
            assertEquals(COOKIE, c.immediate());
            assertEquals(SIZE, c.byteLength());
            assertArrayEquals(object, client.memory.toArray(ValueLayout.JAVA_BYTE));

            assertEquals(RcStatus.OK, core.finishFinal(id));
            TerminalEvent e = events.only(id);
            assertEquals(TerminalReason.COMPLETED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.OK), e.lastOutcome());
            assertEquals(SIZE, e.bytes());
            assertStagingAndChannelsReturned();
        }
    }

    /** READY on another thread; the client writes once READY has claimed the session (its receive is posted). */
    private SessionResult<ReadyResponse> putWith(Client client, PrepareResponse prep, int immediate, int length,
                                                 boolean expectDelivered) throws Exception {
        CompletableFuture<SessionResult<ReadyResponse>> ready =
                CompletableFuture.supplyAsync(() -> core.readyTransfer(client.ready(prep.sessionId())));
        Harness.await("READY claimed the session", () -> core.detail(prep.sessionId())
                .map(d -> d.state() != SessionState.PREPARED).orElse(true));
        client.channel.connect(prep.serverEndpoint());
        WorkRequest write = WorkRequest.writeWithImm(6, new ScatterGatherEntry(client.region, 0, length),
                prep.stagingRegion().address(), prep.stagingRegion().rkey(), immediate);
        Completion c = client.channel.submit(List.of(write), Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS)
                .completions().get(0);
        if (expectDelivered) {
            assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
        } // else the server may tear the session (and the connection) down before the client hears back
        return ready.get(10, TimeUnit.SECONDS);
    }

    @Test
    void putReceivesTheClientsWriteIntoStaging() throws Exception {
        try (Client client = new Client()) {
            byte[] object = randomBytes(2);
            MemorySegment.copy(MemorySegment.ofArray(object), 0, client.memory, 0, SIZE);
            PrepareResponse prep = core.prepare(new PrepareRequest(ALICE, Op.PUT, "/bucket/up", 0, SIZE, 0x456,
                    COOKIE, client.preparedEndpoint(), null)).orElseThrow();
            assertEquals(SIZE, prep.stagingRegion().length());
            assertEquals(RcStatus.OK, core.finishPrepare(prep.sessionId(), true));

            ReadyResponse r = putWith(client, prep, COOKIE, SIZE, true).orElseThrow();
            assertEquals(ReadyOutcome.OK, r.outcome());
            assertEquals(SIZE, r.bytesTransferred());

            SessionBuffer view = core.getPutData(prep.sessionId()).orElseThrow();
            assertArrayEquals(object, view.buffer().toArray(ValueLayout.JAVA_BYTE));
            assertNotEquals(view.buffer().address(), prep.stagingRegion().address(),
                    "the PUT's PREPARE answer is an opaque base, not the staging buffer's address");
            assertEquals(RcStatus.OK, core.finishPut(prep.sessionId(), view.handle(), true, "\"e2\"", ""));
            assertEquals(TerminalReason.COMPLETED, events.only(prep.sessionId()).reason());
            assertStagingAndChannelsReturned();
        }
    }

    /** The opaque base bounds the client's writes exactly as the real address did: one byte out is refused. */
    @Test
    void aForgedAddressOutsideThePutSessionsSliceIsRefused() throws Exception {
        long[][] forged = {{-1, 2}, {SIZE, 1}, {-4096, 4096}};
        for (long[] f : forged) {
            try (Client client = new Client()) {
                PrepareResponse prep = core.prepare(new PrepareRequest(ALICE, Op.PUT, "/bucket/forged", 0, SIZE,
                        0x456, COOKIE, client.preparedEndpoint(), null)).orElseThrow();
                assertEquals(RcStatus.OK, core.finishPrepare(prep.sessionId(), true));
                client.channel.connect(prep.serverEndpoint());
                WorkRequest write = WorkRequest.writeWithImm(7, new ScatterGatherEntry(client.region, 0, (int) f[1]),
                        prep.stagingRegion().address() + f[0], prep.stagingRegion().rkey(), COOKIE);
                Completion c = client.channel.submit(List.of(write), Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS)
                        .completions().get(0);
                assertEquals(WcStatus.REM_ACCESS_ERR, c.status(), "base" + f[0] + " +" + f[1] + ": " + c);
                assertEquals(RcStatus.OK, core.cancel(prep.sessionId(), ALICE));
            }
        }
        assertStagingAndChannelsReturned();
    }

    @Test
    void putWithAnotherImmediateIsRefused() throws Exception {
        try (Client client = new Client()) {
            PrepareResponse prep = core.prepare(new PrepareRequest(ALICE, Op.PUT, "/bucket/up", 0, SIZE, 0x456,
                    COOKIE, client.preparedEndpoint(), null)).orElseThrow();
            assertEquals(RcStatus.OK, core.finishPrepare(prep.sessionId(), true));
            assertEquals(RcStatus.WIRE, putWith(client, prep, COOKIE + 1, SIZE, false).status());
            TerminalEvent e = events.only(prep.sessionId());
            assertEquals(TerminalReason.FAILED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.VERIFY_FAIL), e.lastOutcome());
            assertStagingAndChannelsReturned();
        }
    }

    @Test
    void getToAClientThatPostedNoReceiveIsBusy() throws Exception {
        try (Client client = new Client()) {
            PrepareResponse prep = core.prepare(new PrepareRequest(ALICE, Op.GET, "/bucket/big", 0, SIZE, 0x123,
                    COOKIE, client.preparedEndpoint(), new RemoteRegion(client.region.address(), client.region.length(), client.region.rkey()))).orElseThrow();
            SessionId id = prep.sessionId();
            SessionBuffer lease = core.borrowStaging(id).orElseThrow();
            assertEquals(RcStatus.OK, core.finishStaging(id, lease.handle(), true, SIZE, "", ""));
            assertEquals(RcStatus.OK, core.finishPrepare(id, true));
            long channel = core.detail(id).orElseThrow().channelId();
            ReadyResponse r = core.readyTransfer(client.ready(id)).orElseThrow();
            assertEquals(ReadyOutcome.BUSY, r.outcome(), "the TCP agent reports receiver-not-ready after rnr.wait.ms");
            SessionDetail d = core.detail(id).orElseThrow();
            assertEquals(SessionState.PREPARED, d.state());
            assertTrue(d.published());
            assertEquals(channel, d.channelId(), "the session's channel was reset, not replaced");
            assertEquals(1, server.channelCount());
            assertEquals(RcStatus.OK, core.cancel(id, ALICE));
            TerminalEvent e = events.only(id);
            assertEquals(TerminalReason.CANCELLED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.BUSY), e.lastOutcome());
            assertStagingAndChannelsReturned();
        }
    }

    @Test
    void aBusyGetIsRetriedAgainstTheServerEndpointPrepareReturned() throws Exception {
        try (Client client = new Client()) {
            byte[] object = randomBytes(3);
            PrepareResponse prep = core.prepare(new PrepareRequest(ALICE, Op.GET, "/bucket/retry", 0, SIZE, 0x123,
                    COOKIE, client.preparedEndpoint(), new RemoteRegion(client.region.address(), client.region.length(), client.region.rkey()))).orElseThrow();
            SessionId id = prep.sessionId();
            SessionBuffer lease = core.borrowStaging(id).orElseThrow();
            MemorySegment.copy(MemorySegment.ofArray(object), 0, lease.buffer(), 0, SIZE);
            assertEquals(RcStatus.OK, core.finishStaging(id, lease.handle(), true, SIZE, "", ""));
            assertEquals(RcStatus.OK, core.finishPrepare(id, true));
            // the first READY: the server dials the client, whose agent refuses the write (no receive posted)
            assertEquals(ReadyOutcome.BUSY, core.readyTransfer(client.ready(id)).orElseThrow().outcome());
            assertEquals(ChannelState.ERROR, client.channel.state(), "the client's channel refused the write");

            // the client resets its channel (same id, same key) and, RC style, connects first: to the server
            // endpoint PREPARE returned, which the server's reset kept valid
            client.channel.reset();
            CompletableFuture<BatchResult> arrival = client.channel.submit(List.of(WorkRequest.recv(8)),
                    Duration.ofSeconds(10));
            client.channel.connect(prep.serverEndpoint());
            assertEquals(prep.serverEndpoint(), client.channel.remoteEndpoint());

            ReadyResponse ok = core.readyTransfer(client.ready(id)).orElseThrow();
            assertEquals(ReadyOutcome.OK, ok.outcome());
            assertEquals(SIZE, ok.bytesTransferred());
            Completion c = arrival.get(10, TimeUnit.SECONDS).completions().get(0);
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, c.opcode());
            assertEquals(COOKIE, c.immediate());
            assertArrayEquals(object, client.memory.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(RcStatus.OK, core.finishFinal(id));
            TerminalEvent e = events.only(id);
            assertEquals(TerminalReason.COMPLETED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.OK), e.lastOutcome());
            assertStagingAndChannelsReturned();
        }
    }

    @Test
    void losingTheTransportEndsItsSessionsOnceAndReturnsStaging() throws Exception {
        try (Client client = new Client()) {
            SessionId a = core.prepare(new PrepareRequest(ALICE, Op.PUT, "/b/a", 0, 4096, 1, COOKIE,
                    client.preparedEndpoint(), null)).orElseThrow().sessionId();
            SessionId b = core.prepare(new PrepareRequest(ALICE, Op.GET, "/b/b", 0, 4096, 1, COOKIE,
                    client.preparedEndpoint(), new RemoteRegion(client.region.address(), client.region.length(), client.region.rkey()))).orElseThrow().sessionId();
            assertEquals(RcStatus.OK, core.finishPrepare(a, true));
            assertEquals(2, core.transportGone(server));
            for (SessionId id : List.of(a, b)) {
                TerminalEvent e = events.only(id);
                assertEquals(TerminalReason.TRANSPORT_LOST, e.reason());
                assertEquals(Optional.of(ReadyOutcome.WIRE_FAIL), e.lastOutcome());
            }
            assertEquals(RcStatus.INTERNAL, core.prepare(new PrepareRequest(ALICE, Op.GET, "/b/c", 0, 4096, 1, COOKIE,
                    client.preparedEndpoint(), new RemoteRegion(client.region.address(), client.region.length(), client.region.rkey()))).status(), "no transport bound now");
            assertStagingAndChannelsReturned();
        }
    }
}
