package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.LeaseHandle;
import org.objrdma.api.session.Op;
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
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Latency;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/** READY's data phase on the loopback transport: bytes, immediates, byte counts, Busy, and every failure. */
class DataPhaseTest {
    private static final int SIZE = 8192;

    private static byte[] pattern(int seed) {
        byte[] b = new byte[SIZE];
        for (int i = 0; i < SIZE; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    /** PREPARE + stage + commit a GET whose staging holds {@code bytes}. */
    private static SessionId stagedGet(Harness h, Harness.Client client, byte[] bytes) {
        return preparedAndStagedGet(h, client, bytes).sessionId();
    }

    /** {@link #stagedGet}, answering what PREPARE answered. */
    private static PrepareResponse preparedAndStagedGet(Harness h, Harness.Client client, byte[] bytes) {
        PrepareResponse prep = h.core.prepare(client.prepareRequest(Op.GET, SIZE)).orElseThrow();
        SessionId id = prep.sessionId();
        SessionBuffer lease = h.core.borrowStaging(id).orElseThrow();
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, lease.buffer(), 0, SIZE);
        assertEquals(RcStatus.OK, h.core.finishStaging(id, lease.handle(), true, SIZE, "\"etag-get\"", "v7"));
        assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));
        return prep;
    }

    @Test
    void getWritesStagingIntoClientMemoryWithTheCookieAsImmediate() throws Exception {
        try (Harness h = new Harness(); Harness.Client client = h.client(SIZE)) {
            byte[] object = pattern(3);
            SessionId id = stagedGet(h, client, object);
            CompletableFuture<BatchResult> arrival = client.postReceive();
            ReadyResponse r = h.core.readyTransfer(client.readyRequest(id)).orElseThrow();
            assertEquals(ReadyOutcome.OK, r.outcome());
            assertEquals(SIZE, r.bytesTransferred());
            assertEquals(Harness.COOKIE, r.cookieEcho());
            assertEquals("\"etag-get\"", r.etag());
            assertEquals("v7", r.versionId());
            Completion c = arrival.get(5, TimeUnit.SECONDS).completions().get(0);
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, c.opcode());
            assertEquals(Harness.COOKIE, c.immediate());
            assertEquals(SIZE, c.byteLength());
            assertArrayEquals(object, client.memory.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(RcStatus.OK, h.core.finishFinal(id));
            TerminalEvent e = h.events.only(id);
            assertEquals(TerminalReason.COMPLETED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.OK), e.lastOutcome());
            assertEquals(SIZE, e.bytes());
            h.assertQuiescent();
            assertEquals(0, h.transport.openChannels() - 1, "only the client's channel is left open");
        }
    }

    /** The client's half of a PUT: connect to the server's endpoint, then WRITE_WITH_IMM into staging. */
    private static Completion clientWrites(Harness.Client client, PrepareResponse prep, int immediate, int length)
            throws Exception {
        client.channel.connect(prep.serverEndpoint());
        RemoteRegion staging = prep.stagingRegion();
        WorkRequest write = WorkRequest.writeWithImm(9, new ScatterGatherEntry(client.region, 0, length),
                staging.address(), staging.rkey(), immediate);
        return client.channel.submit(List.of(write), Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS).completions().get(0);
    }

    private static PrepareResponse publishedPut(Harness h, Harness.Client client) {
        PrepareResponse prep = h.core.prepare(client.prepareRequest(Op.PUT, SIZE)).orElseThrow();
        assertEquals(RcStatus.OK, h.core.finishPrepare(prep.sessionId(), true));
        assertEquals(SIZE, prep.stagingRegion().length());
        return prep;
    }

    /** READY on another thread; the client writes once the server posted its receive and connected. */
    private static SessionResult<ReadyResponse> readyWithClientWrite(Harness h, Harness.Client client,
                                                                   PrepareResponse prep, int immediate, int length)
            throws Exception {
        long serverChannel = h.core.detail(prep.sessionId()).orElseThrow().channelId();
        CompletableFuture<SessionResult<ReadyResponse>> ready =
                CompletableFuture.supplyAsync(() -> h.core.readyTransfer(client.readyRequest(prep.sessionId())));
        // the server posts its receive before it connects, so CONNECTED means the write will find it
        Harness.await("server connected", () -> h.transport.channelState(serverChannel) == ChannelState.CONNECTED);
        assertEquals(WcStatus.SUCCESS, clientWrites(client, prep, immediate, length).status());
        return ready.get(10, TimeUnit.SECONDS);
    }

    @Test
    void putReceivesTheClientsWriteAndLendsItForCommit() throws Exception {
        try (Harness h = new Harness(); Harness.Client client = h.client(SIZE)) {
            byte[] object = pattern(9);
            MemorySegment.copy(MemorySegment.ofArray(object), 0, client.memory, 0, SIZE);
            PrepareResponse prep = publishedPut(h, client);
            ReadyResponse r = readyWithClientWrite(h, client, prep, Harness.COOKIE, SIZE).orElseThrow();
            assertEquals(ReadyOutcome.OK, r.outcome());
            assertEquals(SIZE, r.bytesTransferred());
            assertEquals("", r.etag());
            SessionBuffer view = h.core.getPutData(prep.sessionId()).orElseThrow();
            assertArrayEquals(object, view.buffer().toArray(ValueLayout.JAVA_BYTE));
            assertEquals(RcStatus.OK, h.core.finishPut(prep.sessionId(), view.handle(), true, "\"etag-put\"", ""));
            assertEquals(RcStatus.STALE, h.core.finishPut(prep.sessionId(), view.handle(), true, "", ""),
                    "a redundant finish_put is a no-op STALE");
            TerminalEvent e = h.events.only(prep.sessionId());
            assertEquals(TerminalReason.COMPLETED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.OK), e.lastOutcome());
            h.assertQuiescent();
        }
    }

    @Test
    void putWithTheWrongImmediateIsAVerifyFailure() throws Exception {
        try (Harness h = new Harness(); Harness.Client client = h.client(SIZE)) {
            PrepareResponse prep = publishedPut(h, client);
            SessionResult<ReadyResponse> r = readyWithClientWrite(h, client, prep, Harness.COOKIE ^ 1, SIZE);
            assertEquals(RcStatus.WIRE, r.status());
            assertEquals(ReadyOutcome.VERIFY_FAIL, r.failureDetail().orElseThrow().outcome(), "the route can answer 502");
            assertEquals(0, r.failureDetail().orElseThrow().bytesTransferred());
            TerminalEvent e = h.events.only(prep.sessionId());
            assertEquals(TerminalReason.FAILED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.VERIFY_FAIL), e.lastOutcome());
            h.assertQuiescent();
        }
    }

    @Test
    void putOfTheWrongLengthIsAVerifyFailure() throws Exception {
        try (Harness h = new Harness(); Harness.Client client = h.client(SIZE)) {
            PrepareResponse prep = publishedPut(h, client);
            SessionResult<ReadyResponse> r = readyWithClientWrite(h, client, prep, Harness.COOKIE, SIZE - 1);
            assertEquals(RcStatus.WIRE, r.status());
            assertEquals(ReadyOutcome.VERIFY_FAIL, r.failureDetail().orElseThrow().outcome());
            assertEquals(Optional.of(ReadyOutcome.VERIFY_FAIL), h.events.only(prep.sessionId()).lastOutcome());
            h.assertQuiescent();
        }
    }

    @Test
    void putThatNeverArrivesTimesOut() throws Exception {
        try (Harness h = new Harness(Harness.settings().execTimeoutMs(150).build()); Harness.Client client = h.client(SIZE)) {
            PrepareResponse prep = publishedPut(h, client);
            SessionResult<ReadyResponse> r = h.core.readyTransfer(client.readyRequest(prep.sessionId()));
            assertEquals(RcStatus.WIRE, r.status());
            assertEquals(ReadyOutcome.TIMEOUT, r.failureDetail().orElseThrow().outcome(), "the route can answer 504");
            TerminalEvent e = h.events.only(prep.sessionId());
            assertEquals(TerminalReason.FAILED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.TIMEOUT), e.lastOutcome());
            h.assertQuiescent();
        }
    }

    @Test
    void getToAClientWithoutAReceiveIsBusyAndReadyMayBeRetried() throws Exception {
        try (Harness h = new Harness(); Harness.Client client = h.client(SIZE)) {
            byte[] object = pattern(5);
            PrepareResponse prep = preparedAndStagedGet(h, client, object);
            SessionId id = prep.sessionId();
            long channel = h.core.detail(id).orElseThrow().channelId();
            long opened = h.transport.opened.get();
            h.clock.advance(700);
            ReadyResponse busy = h.core.readyTransfer(client.readyRequest(id)).orElseThrow();
            assertEquals(ReadyOutcome.BUSY, busy.outcome());
            assertEquals(0, busy.bytesTransferred());
            SessionDetail d = h.core.detail(id).orElseThrow();
            assertEquals(SessionState.PREPARED, d.state());
            assertTrue(d.published());
            assertEquals(0, d.activeRef());
            assertEquals(h.clock.millis() + 1_000, d.prepDeadline(), "the prep deadline is re-armed");
            assertEquals(0, d.execDeadline());
            assertEquals(ReadyOutcome.BUSY, d.lastOutcome());
            assertEquals(channel, d.channelId(), "the same channel, reset");
            assertEquals(ChannelState.INIT, h.transport.channelState(channel));
            assertEquals(opened, h.transport.opened.get(), "no channel was opened");
            assertEquals(prep.serverEndpoint(), h.transport.endpointOf(channel),
                    "the endpoint PREPARE returned is still the server's");
            h.clock.advance(700); // past the first prep deadline, within the re-armed one
            h.core.reapPass();
            client.postReceive();
            ReadyResponse ok = h.core.readyTransfer(client.readyRequest(id)).orElseThrow();
            assertEquals(ReadyOutcome.OK, ok.outcome());
            assertArrayEquals(object, client.memory.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(RcStatus.OK, h.core.finishFinal(id));
            assertEquals(Optional.of(ReadyOutcome.OK), h.events.only(id).lastOutcome());
            assertEquals(1, h.telemetry.value(Counter.SESSIONS_READY_BUSY), "the Busy READY is counted");
            assertEquals(1, h.telemetry.value(Counter.SESSIONS_READY_OK), "so is the one that moved the bytes");
            assertEquals(0, h.telemetry.value(Counter.SESSIONS_READY_FAILED));
            h.assertQuiescent();
        }
    }

    @Test
    void aReadyThatClaimedItsSessionIsTimedWithItsDataPhaseAndARefusedOneIsNot() throws Exception {
        try (Harness h = new Harness(); Harness.Client client = h.client(SIZE)) {
            SessionId id = stagedGet(h, client, pattern(5));
            ReadyRequest wrongCookie = new ReadyRequest(Harness.ALICE, id, Harness.COOKIE + 1, client.readyRequest(id).clientQpn(), null);
            assertEquals(RcStatus.SESSION, h.core.readyTransfer(wrongCookie).status());
            assertEquals(List.of(), h.telemetry.recorded(Latency.SESSION_READY), "a refused READY is not timed");
            assertEquals(List.of(), h.telemetry.recorded(Latency.SESSION_DATA_PHASE));
            client.postReceive();
            long before = System.nanoTime();
            assertEquals(ReadyOutcome.OK, h.core.readyTransfer(client.readyRequest(id)).orElseThrow().outcome());
            long elapsed = System.nanoTime() - before;
            List<Long> ready = h.telemetry.recorded(Latency.SESSION_READY);
            List<Long> data = h.telemetry.recorded(Latency.SESSION_DATA_PHASE);
            assertEquals(1, ready.size(), "one READY, one duration");
            assertEquals(1, data.size());
            assertTrue(data.get(0) > 0 && data.get(0) <= ready.get(0), "the data phase is inside READY: " + data + " " + ready);
            assertTrue(ready.get(0) <= elapsed, "READY is timed inside the call: " + ready + " vs " + elapsed);
            assertEquals(RcStatus.OK, h.core.finishFinal(id));
            h.assertQuiescent();
        }
    }

    @Test
    void busyWhoseReArmFailsEndsTheSessionWithWire() throws Exception {
        try (Harness h = new Harness(); Harness.Client client = h.client(SIZE)) {
            SessionId id = stagedGet(h, client, pattern(1));
            h.transport.failReset = true;
            SessionResult<ReadyResponse> r = h.core.readyTransfer(client.readyRequest(id));
            assertEquals(RcStatus.WIRE, r.status());
            assertEquals(ReadyOutcome.WIRE_FAIL, r.failureDetail().orElseThrow().outcome(), "no retry is possible");
            TerminalEvent e = h.events.only(id);
            assertEquals(TerminalReason.FAILED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.BUSY), e.lastOutcome());
            h.assertQuiescent();
        }
    }

    @Test
    void retryExceededIsAWireFailureThatEndsTheSessionAtOnce() throws Exception {
        try (Harness h = new Harness(); Harness.Client client = h.client(SIZE)) {
            SessionId id = stagedGet(h, client, pattern(1));
            // the peer vanished (retries exceeded): not Busy, which would pin staging until the prep deadline
            h.transport.script = wr -> Completion.failure(wr.wrId(), WcStatus.RETRY_EXC_ERR, WcOpcode.RDMA_WRITE);
            SessionResult<ReadyResponse> r = h.core.readyTransfer(client.readyRequest(id));
            assertEquals(RcStatus.WIRE, r.status());
            assertEquals(ReadyOutcome.WIRE_FAIL, r.failureDetail().orElseThrow().outcome());
            TerminalEvent e = h.events.only(id);
            assertEquals(TerminalReason.FAILED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.WIRE_FAIL), e.lastOutcome());
            assertEquals(1, h.telemetry.value(Counter.SESSIONS_READY_FAILED), "the failed READY is counted");
            assertEquals(0, h.telemetry.value(Counter.SESSIONS_READY_OK));
            h.assertQuiescent(); // staging back at once, without any clock advance
        }
    }

    @Test
    void remoteAccessErrorIsAWireFailure() throws Exception {
        try (Harness h = new Harness(); Harness.Client client = h.client(SIZE)) {
            // PREPARE declares no memory, so READY may name any (a forged key inside a declared region is refused
            // before the wire: ReadyRegionTest); the device is what refuses this one
            SessionId id = h.core.prepare(new org.objrdma.api.session.PrepareRequest(Harness.ALICE, Op.GET,
                    Harness.TARGET, 0, SIZE, Harness.PSN, Harness.COOKIE, client.preparedEndpoint(), null))
                    .orElseThrow().sessionId();
            LeaseHandle lease = h.core.borrowStaging(id).orElseThrow().handle();
            assertEquals(RcStatus.OK, h.core.finishStaging(id, lease, true, SIZE, "", ""));
            assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));
            client.postReceive();
            RemoteRegion forged = new RemoteRegion(client.region.address(), SIZE, client.region.rkey() + 999);
            SessionResult<ReadyResponse> r = h.core.readyTransfer(new org.objrdma.api.session.ReadyRequest(
                    Harness.ALICE, id, Harness.COOKIE, client.channel.id(), forged));
            assertEquals(RcStatus.WIRE, r.status());
            assertEquals(Optional.of(ReadyOutcome.WIRE_FAIL), h.events.only(id).lastOutcome());
            h.assertQuiescent();
        }
    }

    @Test
    void aCompletionForAnotherWorkRequestIsAVerifyFailure() throws Exception {
        try (Harness h = new Harness(); Harness.Client client = h.client(SIZE)) {
            SessionId id = stagedGet(h, client, pattern(1));
            h.transport.script = wr -> Completion.success(wr.wrId() + 1, WcOpcode.RDMA_WRITE, SIZE);
            assertEquals(RcStatus.WIRE, h.core.readyTransfer(client.readyRequest(id)).status());
            assertEquals(Optional.of(ReadyOutcome.VERIFY_FAIL), h.events.only(id).lastOutcome());
            h.assertQuiescent();
        }
    }

    @Test
    void aTransportThatThrowsEndsTheSessionInsteadOfPinningIt() throws Exception {
        try (Harness h = new Harness(); Harness.Client client = h.client(SIZE)) {
            SessionId id = stagedGet(h, client, pattern(1));
            h.transport.script = wr -> {
                throw new IllegalStateException("transport bug");
            };
            assertEquals(RcStatus.WIRE, h.core.readyTransfer(client.readyRequest(id)).status());
            assertEquals(Optional.of(ReadyOutcome.WIRE_FAIL), h.events.only(id).lastOutcome());
            assertEquals(0, h.core.readySlotsInUse());
            h.assertQuiescent();
        }
    }

    @Test
    void connectFailureIsWireAndRollsTheReferenceBack() throws Exception {
        try (Harness h = new Harness(); Harness.Client client = h.client(SIZE)) {
            SessionId id = stagedGet(h, client, pattern(1));
            h.transport.failConnect = true;
            assertEquals(RcStatus.WIRE, h.core.readyTransfer(client.readyRequest(id)).status());
            TerminalEvent e = h.events.only(id);
            assertEquals(TerminalReason.FAILED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.WIRE_FAIL), e.lastOutcome());
            assertEquals(0, h.core.readySlotsInUse());
            h.assertQuiescent();
        }
    }

    @Test
    void controlPlaneOnlySessionsReportNoBytesAndCanNeverCommitAPut() {
        try (Harness h = new Harness()) { // the harness runs control plane only
            SessionId id = h.prepare(Op.PUT, 4096).sessionId();
            assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));
            ReadyResponse r = h.core.readyTransfer(h.ready(id)).orElseThrow();
            assertEquals(ReadyOutcome.OK, r.outcome());
            assertEquals(0, r.bytesTransferred(), "nothing moved, and READY says so");
            assertEquals(RcStatus.STATE, h.core.getPutData(id).status(), "no received bytes to commit");
            assertEquals(RcStatus.OK, h.core.finishFinal(id));
            TerminalEvent e = h.events.only(id);
            assertEquals(0, e.bytes());
            h.assertQuiescent();
        }
    }

    @Test
    void putViewAfterARealDataPhaseStillFollowsTheFinalizerRule() throws Exception {
        try (Harness h = new Harness()) {
            SessionId id = h.completedPut(4096);
            SessionBuffer view = h.core.getPutData(id).orElseThrow();
            assertEquals(RcStatus.DOUBLE, h.core.getPutData(id).status());
            assertEquals(RcStatus.STATE, h.core.finishFinal(id), "after get_put_data only finish_put finalizes");
            assertEquals(RcStatus.OK, h.core.finishPut(id, view.handle(), false, "", ""));
            assertEquals(TerminalReason.ABORTED, h.events.only(id).reason());
            h.assertQuiescent();
        }
    }
}
