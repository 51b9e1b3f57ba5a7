package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.objrdma.session.internal.Harness.ALICE;
import static org.objrdma.session.internal.Harness.BOB;

import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.api.telemetry.Counter;

/**
 * SESSIONS_CANCELLED, SESSIONS_EXPIRED and SESSIONS_ENDED move once per session that ends for that reason:
 * an owner's CANCEL, a refused CANCEL of someone else (no move), an expiry, and cancel-all.
 */
class SessionEndCountersTest {

    @Test
    void eachEndingMovesItsCounterOnce() throws Exception {
        try (Harness h = new Harness()) {
            SessionId cancelled = h.prepare(Op.GET, 4096).sessionId();
            SessionId expiring = h.prepare(Op.GET, 4096).sessionId();

            assertEquals(RcStatus.SESSION, h.core.cancel(cancelled, BOB), "only the owner cancels");
            assertEquals(0, h.telemetry.value(Counter.SESSIONS_CANCELLED));
            assertEquals(RcStatus.OK, h.core.cancel(cancelled, ALICE));
            Harness.await("the cancelled session ended", () -> h.events.count(cancelled) == 1);
            assertEquals(1, h.telemetry.value(Counter.SESSIONS_CANCELLED));
            assertEquals(1, h.telemetry.value(Counter.SESSIONS_ENDED));
            h.core.cancel(cancelled, ALICE); // a second cancel ends nothing more
            h.core.reapPass();
            assertEquals(1, h.telemetry.value(Counter.SESSIONS_CANCELLED));

            h.clock.advance(10 * 1_000); // past the PREPARE deadline of the harness settings
            h.core.reapPass();
            Harness.await("the expired session ended", () -> h.events.count(expiring) == 1);
            assertEquals(1, h.telemetry.value(Counter.SESSIONS_EXPIRED));
            assertEquals(2, h.telemetry.value(Counter.SESSIONS_ENDED));

            SessionId last = h.prepare(Op.PUT, 4096).sessionId();
            h.core.cancelAll();
            h.core.reapPass();
            Harness.await("cancel-all ended the last session", () -> h.events.count(last) == 1);
            assertEquals(3, h.telemetry.value(Counter.SESSIONS_ENDED));
            long cancelledEvents = h.events.bySession.values().stream()
                    .filter(l -> l.get(0).reason() == TerminalReason.CANCELLED).count();
            assertEquals(cancelledEvents, h.telemetry.value(Counter.SESSIONS_CANCELLED));
            assertEquals(1, h.telemetry.value(Counter.SESSIONS_EXPIRED));
        }
    }
}
