package org.objrdma.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.SessionState;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.wire.RcToken;
import org.objrdma.session.internal.MonotonicClock;
import org.objrdma.session.internal.RandomSource;
import org.objrdma.session.internal.SessionCore;
import org.objrdma.session.internal.SessionSettings;
import org.objrdma.staging.internal.BufferPool;
import org.objrdma.staging.internal.StagingSettings;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * The hipobj-rc-v2 client steps against the real session core, staging pool and two TCP transports: PREPARE
 * with the values the transfer builds, the client's data phase, READY, and the bytes on both sides.
 */
class RcClientTest {
    private static final PrincipalId ALICE = PrincipalId.fromCanonical("alice:secret");
    private static final int SIZE = 1 << 20;

    private TcpTransport serverTransport;
    private TcpTransport clientTransport;
    private BufferPool pool;
    private SessionCore core;
    private Arena arena;
    private ClientMemory memory;
    private RcClient client;

    @BeforeEach
    void start() throws Exception {
        serverTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        clientTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        pool = BufferPool.create(StagingSettings.defaults(), serverTransport, () -> Telemetry.NOOP);
        core = new SessionCore(SessionSettings.builder().allowAddresses("127.0.0.0/8, ::1").execTimeoutMs(5_000).build(), MonotonicClock.system(),
                RandomSource.secure());
        core.useTransport(serverTransport);
        core.useStagingPool(pool);
        core.startReaper();
        arena = Arena.ofShared();
        memory = ClientMemory.register(clientTransport, arena.allocate(SIZE, 4096));
        client = new RcClient(clientTransport, Duration.ofSeconds(10));
    }

    @AfterEach
    void stop() {
        core.shutdown(Duration.ofSeconds(2));
        pool.close();
        memory.close();
        clientTransport.close();
        serverTransport.close();
        arena.close();
    }

    private static byte[] random(long seed) {
        byte[] b = new byte[SIZE];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void getMovesTheStagedObjectIntoClientMemory() throws Exception {
        byte[] object = random(1);
        try (RcTransfer t = client.begin(Op.GET, memory, 0, SIZE)) {
            RcToken token = RcToken.parse(t.token()).value();
            assertEquals(RcToken.TRANSPORT_TCP, token.transport());
            assertEquals(t.clientEndpoint(), token.tcpEndpoint(t.channelKey()).value(), "the token names the channel");
            assertEquals(t.clientRegion(), token.remoteRegion());

            PrepareResponse prep = core.prepare(t.prepareRequest(ALICE, "/bucket/obj", 0)).orElseThrow();
            SessionId id = prep.sessionId();
            SessionBuffer lease = core.borrowStaging(id).orElseThrow();
            MemorySegment.copy(MemorySegment.ofArray(object), 0, lease.buffer(), 0, SIZE);
            assertEquals(RcStatus.OK, core.finishStaging(id, lease.handle(), true, SIZE, "\"e\"", ""));
            assertEquals(RcStatus.OK, core.finishPrepare(id, true));

            CompletableFuture<RcOutcome> outcome = t.start(prep);
            ReadyResponse ready = core.readyTransfer(t.readyRequest(ALICE, id)).orElseThrow();
            assertEquals(ReadyOutcome.OK, ready.outcome());
            RcOutcome o = outcome.get(10, TimeUnit.SECONDS);
            assertTrue(o.ok(), o.toString());
            assertEquals(SIZE, o.bytes());
            assertEquals(-1, memory.segment().mismatch(MemorySegment.ofArray(object)));
            assertEquals(RcStatus.OK, core.finishFinal(id));
        }
    }

    @Test
    void putWritesClientMemoryIntoStaging() throws Exception {
        byte[] object = random(2);
        MemorySegment.copy(MemorySegment.ofArray(object), 0, memory.segment(), 0, SIZE);
        try (RcTransfer t = client.begin(Op.PUT, memory, 0, SIZE)) {
            assertEquals(null, t.clientRegion());
            PrepareResponse prep = core.prepare(t.prepareRequest(ALICE, "/bucket/up", 0)).orElseThrow();
            SessionId id = prep.sessionId();
            assertEquals(RcStatus.OK, core.finishPrepare(id, true));

            // READY first (it posts the receive), then the client's write, as two HTTP-driven threads would
            CompletableFuture<SessionResult<ReadyResponse>> ready =
                    CompletableFuture.supplyAsync(() -> core.readyTransfer(t.readyRequest(ALICE, id)));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (core.detail(id).map(d -> d.state() == SessionState.PREPARED).orElse(false)
                    && System.nanoTime() < deadline) {
                Thread.sleep(2);
            }
            RcOutcome o = t.start(prep).get(10, TimeUnit.SECONDS);
            assertTrue(o.ok(), o.toString());
            assertEquals(ReadyOutcome.OK, ready.get(10, TimeUnit.SECONDS).orElseThrow().outcome());
            SessionBuffer view = core.getPutData(id).orElseThrow();
            assertEquals(-1, view.buffer().asSlice(0, SIZE).mismatch(MemorySegment.ofArray(object)));
            assertEquals(RcStatus.OK, core.finishPut(id, view.handle(), true, "\"p\"", ""));
        }
    }

    @Test
    void aGetWhoseServerNeverWritesTimesOutAsAFailedOutcome() throws Exception {
        RcClient impatient = new RcClient(clientTransport, Duration.ofMillis(300));
        try (RcTransfer t = impatient.begin(Op.GET, memory, 0, 4096)) {
            PrepareResponse prep = core.prepare(t.prepareRequest(ALICE, "/bucket/never", 0)).orElseThrow();
            RcOutcome o = t.start(prep).get(10, TimeUnit.SECONDS);
            assertFalse(o.ok());
            assertEquals(WcStatus.RESP_TIMEOUT_ERR, o.status());
            core.cancel(prep.sessionId(), ALICE);
        }
    }

    @Test
    void aConnectThatFailsIsAFailedOutcomeNotAnException() throws Exception {
        try (RcTransfer t = client.begin(Op.PUT, memory, 0, 4096)) {
            PrepareResponse prep = core.prepare(t.prepareRequest(ALICE, "/bucket/x", 0)).orElseThrow();
            EndpointInfo.Tcp real = (EndpointInfo.Tcp) prep.serverEndpoint();
            PrepareResponse wrongKey = new PrepareResponse(prep.sessionId(),
                    new EndpointInfo.Tcp(real.address(), real.channelId(), new byte[32]), prep.stagingRegion());
            RcOutcome o = t.start(wrongKey).get(10, TimeUnit.SECONDS);
            assertFalse(o.ok());
            assertEquals(WcStatus.RETRY_EXC_ERR, o.status());
            assertTrue(o.detail().contains("AUTHENTICATION_FAILED"), o.detail());
            core.cancel(prep.sessionId(), ALICE);
        }
    }

    @Test
    void beginRefusesBadArgumentsAndLeavesNothingOpen() {
        int channels = clientTransport.channelCount();
        assertEquals(TransportError.INVALID_ARGUMENT,
                assertThrows(TransportException.class, () -> client.begin(Op.GET, memory, 0, 0)).error());
        assertEquals(TransportError.INVALID_ARGUMENT,
                assertThrows(TransportException.class, () -> client.begin(Op.GET, memory, 1, SIZE)).error());
        assertEquals(TransportError.INVALID_ARGUMENT,
                assertThrows(TransportException.class, () -> client.begin(Op.PUT, null, 0, 1)).error());
        assertEquals(channels, clientTransport.channelCount());
        assertThrows(IllegalArgumentException.class, () -> new RcClient(clientTransport, Duration.ZERO));
    }

    @Test
    void cookiesAreNonZeroAndPsnsFit24Bits() throws Exception {
        for (int i = 0; i < 50; i++) {
            try (RcTransfer t = client.begin(Op.PUT, memory, 0, 1)) {
                assertTrue(t.cookie() != 0);
                assertTrue(t.psn() > 0 && t.psn() <= 0xFF_FFFF);
            }
        }
    }
}
