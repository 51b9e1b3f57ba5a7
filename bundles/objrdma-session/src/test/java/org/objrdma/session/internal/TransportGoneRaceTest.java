package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
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
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.staging.internal.BufferPool;
import org.objrdma.staging.internal.StagingSettings;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * What a stopped transport bundle does to the session core, without Karaf, on the real TCP transport and the
 * real staging pool: DS calls {@code transportGone} (the liveTransport unbind), then deactivates the session
 * manager ({@code shutdown}), then unbinds its terminal listeners — all on one thread, while the READY threads
 * of the sessions on that transport wake up with flushed completions and tear their sessions down. HotSwapIT
 * lost a terminal event exactly there (karaf.log: "2 session(s) end with a wire failure", then "session manager
 * stopped: 0 live session(s)", and one session never notified): the READY thread had taken its session out of
 * the live map, the shutdown saw none left and returned, and the listeners were gone before that teardown
 * reached them.
 */
class TransportGoneRaceTest {
    private static final PrincipalId ALICE = PrincipalId.fromCanonical("alice:secret");
    private static final int COOKIE = 0x7ea4_0001;
    private static final int SIZE = 1 << 20;

    private TcpTransport server;
    private TcpTransport clientTransport;
    private BufferPool pool;
    /** Returns wait for this before they reach the pool: a teardown that takes its time before it notifies. */
    private final CountDownLatch returnsMayGo = new CountDownLatch(1);
    private SessionCore core;
    private Arena arena;

    @BeforeEach
    void start() throws Exception {
        server = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        clientTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        pool = BufferPool.create(StagingSettings.defaults(), server, () -> Telemetry.NOOP);
        core = new SessionCore(SessionSettings.builder().allowAddresses(Harness.LOOPBACK).execTimeoutMs(30_000)
                .shutdownTimeoutMs(10_000).build(), MonotonicClock.system(), RandomSource.secure());
        core.useTransport(server);
        core.useStagingPool(new SlowReturns(pool, returnsMayGo));
        core.startReaper();
        arena = Arena.ofShared();
    }

    @AfterEach
    void stop() {
        returnsMayGo.countDown();
        core.shutdown(Duration.ofSeconds(2));
        pool.close();
        clientTransport.close();
        server.close();
        arena.close();
    }

    /** A PUT client on the second transport: memory, a channel the server dials at READY. */
    private final class Upload {
        final MemorySegment memory = arena.allocate(SIZE, 4096);
        final MemoryRegion region;
        final Channel channel;
        PrepareResponse prepared;
        CompletableFuture<SessionResult<ReadyResponse>> ready;

        Upload() throws Exception {
            region = clientTransport.register(memory, EnumSet.of(Access.LOCAL_WRITE));
            channel = clientTransport.openChannel(ChannelOptions.DEFAULT);
        }

        /** PREPARE, commit, READY in the background until the server has dialed this client. */
        SessionId start(int i) throws Exception {
            EndpointInfo.Tcp mine = (EndpointInfo.Tcp) channel.localEndpoint();
            prepared = core.prepare(new PrepareRequest(ALICE, Op.PUT, "/race/" + i, 0, SIZE, 0x99, COOKIE,
                    new EndpointInfo.Tcp(mine.address(), 0, mine.key()), null)).orElseThrow();
            assertEquals(RcStatus.OK, core.finishPrepare(prepared.sessionId(), true));
            ready = CompletableFuture.supplyAsync(() -> core.readyTransfer(
                    new ReadyRequest(ALICE, prepared.sessionId(), COOKIE, channel.id(), null)));
            Harness.await("the server dialed client " + i, () -> channel.state() == ChannelState.CONNECTED);
            return prepared.sessionId();
        }

        /** Half the object into the staging slice with a plain WRITE: the session is mid-transfer. */
        void writeHalf() throws Exception {
            WcStatus s = channel.submit(List.of(WorkRequest.write(1, new ScatterGatherEntry(region, 0, SIZE / 2),
                    prepared.stagingRegion().address(), prepared.stagingRegion().rkey())), Duration.ofSeconds(10))
                    .get(10, TimeUnit.SECONDS).completions().get(0).status();
            assertEquals(WcStatus.SUCCESS, s);
        }
    }

    /**
     * The order DS uses when the transport's bundle stops, with staging returns that take their time (so the
     * READY threads' teardowns are still running when the deactivation looks): every session still reaches the
     * listener exactly once, because the deactivation waits for teardowns other threads are running before DS
     * may unbind the listeners.
     */
    @Test
    void everySessionReachesItsListenerWhenShutdownRacesTheTeardownsOfItsReadyThreads() throws Exception {
        CountDownLatch deactivated = new CountDownLatch(1);
        RecordingListener events = new RecordingListener();
        core.addTerminalListener(events);
        List<Upload> uploads = List.of(new Upload(), new Upload());
        List<SessionId> ids = new ArrayList<>();
        for (int i = 0; i < uploads.size(); i++) {
            ids.add(uploads.get(i).start(i));
            uploads.get(i).writeHalf();
        }
        assertTrue(pool.stats().bytesBorrowed() >= 2L * SIZE);

        CompletableFuture<ShutdownReport> scr = CompletableFuture.supplyAsync(() -> {
            assertEquals(2, core.transportGone(server)); // liveTransport unbind
            ShutdownReport report = core.shutdown(Duration.ofMillis(core.settings().shutdownTimeoutMs())); // deactivate
            deactivated.countDown();
            core.removeTerminalListener(events); // the dynamic references are unbound after deactivate
            return report;
        });
        // the returns go on once the deactivation returned, or after a while if it waits for them (as it must)
        deactivated.await(3, TimeUnit.SECONDS);
        returnsMayGo.countDown();
        ShutdownReport report = scr.get(20, TimeUnit.SECONDS);

        for (Upload u : uploads) {
            SessionResult<ReadyResponse> r = u.ready.get(20, TimeUnit.SECONDS);
            assertEquals(RcStatus.WIRE, r.status(), r.toString());
            assertEquals(ReadyOutcome.WIRE_FAIL, r.failureDetail().orElseThrow().outcome());
        }
        for (SessionId id : ids) {
            TerminalEvent e = events.only(id);
            assertNotEquals(TerminalReason.COMPLETED, e.reason());
            assertTrue(e.reason() == TerminalReason.TRANSPORT_LOST || e.reason() == TerminalReason.FAILED, e.toString());
        }
        assertTrue(report.clean(), report.toString());
        assertEquals(0, pool.stats().borrowed(), "every lease back: " + pool.stats());
        assertEquals(0, core.liveSessions());
        assertEquals(new LimitAccounting.Usage(0, 0, 0), core.usage());
    }

    /** The real pool, with lease returns that wait for a latch first. */
    private record SlowReturns(StagingPool pool, CountDownLatch mayGo) implements StagingPool {
        @Override
        public StagingLease borrow(long size, PrincipalId principal, String holderHint) throws StagingException {
            return slow(pool.borrow(size, principal, holderHint));
        }

        @Override
        public StagingLease borrow(long size, PrincipalId principal, String holderHint, Duration maxWait)
                throws StagingException {
            return slow(pool.borrow(size, principal, holderHint, maxWait));
        }

        @Override
        public StagingLease borrow(long size, PrincipalId principal, String holderHint, Duration maxWait,
                                   Transport on) throws StagingException {
            return slow(pool.borrow(size, principal, holderHint, maxWait, on));
        }

        @Override
        public long maxBufferSize() {
            return pool.maxBufferSize();
        }

        @Override
        public StagingStats stats() {
            return pool.stats();
        }

        private StagingLease slow(StagingLease lease) {
            return new StagingLease() {
                @Override public long size() { return lease.size(); }
                @Override public MemorySegment segment() { return lease.segment(); }
                @Override public MemoryRegion region() { return lease.region(); }
                @Override public PrincipalId principal() { return lease.principal(); }
                @Override public String holderHint() { return lease.holderHint(); }
                @Override public java.time.Instant borrowedAt() { return lease.borrowedAt(); }
                @Override public boolean isActive() { return lease.isActive(); }

                @Override
                public boolean release() {
                    try {
                        mayGo.await(30, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return lease.release();
                }
            };
        }
    }
}
