package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.LeaseHandle;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.session.TerminalReason;

/**
 * Issue 17, the reaper racing READY: a session's prep deadline (PREPARE to READY, 1 000 ms on the fake clock)
 * runs out at the very moment its READY arrives. Two threads leave a barrier together: one moves the clock past
 * the deadline and runs a reaper pass, the other sends READY. Whichever wins, the session has exactly one
 * terminal outcome and the answers agree with it: READY OK and the session COMPLETED, or READY STALE (or NO_SESSION,
 * when the reaper removed it first) and the
 * session EXPIRED (never both, never a READY OK for an expired session, never a session left behind).
 */
class ReaperReadyRaceTest {
    private static final int ROUNDS = 2_000;

    @Test
    void aDeadlineExpiringAsReadyArrivesEndsTheSessionExactlyOnce() throws Exception {
        ExecutorService racers = Executors.newFixedThreadPool(2);
        Map<String, Integer> mix = new TreeMap<>();
        try (Harness h = new Harness()) {
            CyclicBarrier barrier = new CyclicBarrier(2);
            for (int i = 0; i < ROUNDS; i++) {
                SessionId id = h.prepare(Op.GET, 64).sessionId();
                LeaseHandle lease = h.core.borrowStaging(id).orElseThrow().handle();
                assertEquals(RcStatus.OK, h.core.finishStaging(id, lease, true, 64, "\"e\"", ""));
                assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));
                h.clock.advance(1_000); // exactly at the deadline: still alive
                Future<Integer> reaper = racers.submit(() -> {
                    barrier.await(10, TimeUnit.SECONDS);
                    h.clock.advance(1);
                    return h.core.reapPass();
                });
                Future<SessionResult<ReadyResponse>> ready = racers.submit(() -> {
                    barrier.await(10, TimeUnit.SECONDS);
                    return h.core.readyTransfer(h.ready(id));
                });
                SessionResult<ReadyResponse> answer = ready.get(10, TimeUnit.SECONDS);
                reaper.get(10, TimeUnit.SECONDS);
                boolean readied = answer.isOk() && answer.value().outcome() == ReadyOutcome.OK;
                if (readied) {
                    RcStatus fin = h.core.finishFinal(id);
                    assertTrue(fin == RcStatus.OK || fin == RcStatus.STALE, "finishFinal " + fin);
                } else {
                    // STALE: READY saw the expired session; NO_SESSION: the reaper had already removed it
                    assertTrue(answer.status() == RcStatus.STALE || answer.status() == RcStatus.NO_SESSION,
                            "round " + i + ": a refused READY says " + answer.status());
                }
                // a READY that won may still be marked by the reaper (it then ends at finishFinal): either way once
                h.core.reapPass();
                Harness.await("round " + i + " ended", () -> h.events.count(id) >= 1);
                TerminalEvent end = h.events.only(id);
                if (!readied) {
                    assertEquals(TerminalReason.EXPIRED, end.reason(), "round " + i + ": " + end);
                }
                assertTrue(end.reason() == TerminalReason.COMPLETED || end.reason() == TerminalReason.EXPIRED,
                        "round " + i + ": " + end);
                mix.merge((readied ? "READY OK" : "READY " + answer.status()) + " -> " + end.reason(), 1, Integer::sum);
                h.assertQuiescent();
            }
            assertEquals(ROUNDS, h.events.bySession.size());
            assertEquals(ROUNDS, h.events.total.get(), "one terminal notification per session");
            assertEquals(0, h.core.readySlotsInUse());
        } finally {
            racers.shutdownNow();
        }
        System.out.println("reaper vs READY, " + ROUNDS + " rounds: " + mix);
    }
}
