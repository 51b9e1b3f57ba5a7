package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.LeaseHandle;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.SessionState;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.session.TerminalReason;

/**
 * Each deadline on the fake clock (prep 1000 ms, exec 2000 ms, lease 5000 ms): exactly at the deadline
 * nothing happens, one millisecond later the session ends (reaper pass or the next call on it), the
 * terminal event says EXPIRED, and everything it held comes back.
 */
class DeadlineTest {

    @Test
    void aSessionNeverReadiedExpiresThroughItsPrepDeadline() {
        try (Harness h = new Harness()) {
            SessionId id = h.prepare(Op.PUT, 64).sessionId();
            assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));
            h.clock.advance(1_000);
            assertEquals(0, h.core.reapPass());
            assertTrue(h.core.detail(id).isPresent(), "a deadline is passed only when now > deadline");
            h.clock.advance(1);
            assertEquals(1, h.core.reapPass());
            TerminalEvent e = h.events.only(id);
            assertEquals(TerminalReason.EXPIRED, e.reason());
            assertEquals(Optional.empty(), e.lastOutcome());
            h.assertQuiescent();
        }
    }

    @Test
    void aCallAfterTheDeadlineSeesItWithoutWaitingForTheReaper() {
        try (Harness h = new Harness()) {
            SessionId id = h.prepare(Op.PUT, 64).sessionId();
            assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));
            h.clock.advance(1_001);
            // an expired session is never revived by READY
            assertEquals(RcStatus.STALE, h.core.readyTransfer(h.ready(id)).status());
            assertEquals(TerminalReason.EXPIRED, h.events.only(id).reason());
            h.assertQuiescent();
        }
    }

    @Test
    void theExecDeadlineMarksARunningDataPhaseWhichThenEndsIt() throws Exception {
        try (Harness h = new Harness(); Harness.Client client = h.client(64)) {
            SessionId id = h.core.prepare(client.prepareRequest(Op.GET, 64)).orElseThrow().sessionId();
            LeaseHandle lease = h.core.borrowStaging(id).orElseThrow().handle();
            assertEquals(RcStatus.OK, h.core.finishStaging(id, lease, true, 64, "", ""));
            assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));
            client.postReceive();
            CompletableFuture<Void> gate = new CompletableFuture<>();
            h.transport.hold = gate;
            CompletableFuture<SessionResult<ReadyResponse>> ready =
                    CompletableFuture.supplyAsync(() -> h.core.readyTransfer(client.readyRequest(id)));
            Harness.await("READY running", () -> h.core.detail(id).map(d -> d.state() == SessionState.TRANSFERRING).orElse(false));
            h.clock.advance(2_001);
            assertEquals(0, h.core.reapPass(), "the data phase pins the session");
            SessionDetail marked = h.core.detail(id).orElseThrow();
            assertTrue(marked.reapPending());
            assertEquals(TerminalReason.EXPIRED, marked.terminalReason());
            h.transport.hold = null;
            gate.complete(null);
            assertEquals(ReadyOutcome.OK, ready.get(5, TimeUnit.SECONDS).orElseThrow().outcome());
            // the bytes moved and READY said OK: the gateway finalizes, and the terminal event reports the success
            assertEquals(RcStatus.OK, h.core.finishFinal(id));
            assertEquals(TerminalReason.COMPLETED, h.events.only(id).reason());
            h.assertQuiescent();
        }
    }

    @Test
    void aStagingLeaseHeldPastTheLeaseTimeoutIsRevoked() {
        try (Harness h = new Harness(Harness.settings().prepTimeoutMs(60_000).build())) {
            SessionId id = h.prepare(Op.GET, 64).sessionId();
            LeaseHandle lease = h.core.borrowStaging(id).orElseThrow().handle();
            h.clock.advance(5_000);
            assertEquals(0, h.core.reapPass());
            h.clock.advance(1);
            assertEquals(1, h.core.reapPass());
            assertEquals(TerminalReason.EXPIRED, h.events.only(id).reason());
            h.assertQuiescent();
            assertEquals(RcStatus.STALE, h.core.finishStaging(id, lease, true, 64, "", ""), "the revoked handle is stale");
        }
    }

    @Test
    void aLeaseKeepsAnExpiredSessionOnlyUntilTheLeaseTimeout() {
        try (Harness h = new Harness()) {
            SessionId id = h.prepare(Op.GET, 64).sessionId();
            h.core.borrowStaging(id).orElseThrow();
            h.clock.advance(1_001);
            h.core.reapPass();
            SessionDetail d = h.core.detail(id).orElseThrow();
            assertTrue(d.reapPending(), "expired");
            assertEquals(0, h.events.total.get(), "but pinned by the lease");
            h.clock.advance(4_000);
            assertEquals(1, h.core.reapPass(), "the C core would wait for the holder forever");
            assertEquals(TerminalReason.EXPIRED, h.events.only(id).reason());
            h.assertQuiescent();
        }
    }

    @Test
    void aPutViewHeldPastTheLeaseTimeoutIsRevoked() throws Exception {
        try (Harness h = new Harness()) {
            SessionId id = h.completedPut(64);
            SessionBuffer view = h.core.getPutData(id).orElseThrow();
            h.clock.advance(5_001);
            assertEquals(1, h.core.reapPass());
            TerminalEvent e = h.events.only(id);
            assertEquals(TerminalReason.EXPIRED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.OK), e.lastOutcome());
            assertEquals(RcStatus.STALE, h.core.finishPut(id, view.handle(), true, "", ""));
            h.assertQuiescent();
        }
    }

    @Test
    void aReadyWithoutFinalizerEndsAtTheLeaseTimeout() {
        try (Harness h = new Harness()) {
            SessionId id = h.prepare(Op.PUT, 64).sessionId();
            assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));
            assertEquals(ReadyOutcome.OK, h.core.readyTransfer(h.ready(id)).orElseThrow().outcome());
            h.clock.advance(5_000);
            assertEquals(0, h.core.reapPass());
            h.clock.advance(1);
            assertEquals(1, h.core.reapPass());
            assertEquals(TerminalReason.EXPIRED, h.events.only(id).reason());
            assertEquals(RcStatus.NO_SESSION, h.core.finishFinal(id));
            h.assertQuiescent();
        }
    }

    @Test
    void theReaperThreadFindsAnExpiredSessionWithinItsPeriod() throws Exception {
        try (Harness h = new Harness(Harness.settings().reaperPeriodMs(20).build())) {
            SessionId id = h.prepare(Op.GET, 64).sessionId();
            h.core.startReaper();
            h.core.startReaper(); // idempotent
            Thread.sleep(60);
            assertTrue(h.core.detail(id).isPresent());
            h.clock.advance(1_001);
            Harness.await("reaper ended the session", () -> h.events.count(id) == 1);
            assertEquals(TerminalReason.EXPIRED, h.events.only(id).reason());
        }
    }
}
