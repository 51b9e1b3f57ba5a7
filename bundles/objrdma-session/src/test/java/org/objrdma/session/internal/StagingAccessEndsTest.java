package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;

/**
 * A PUT session's access to its staging slice ends at every end of the session, before the lease returns. The
 * loopback transport cannot grant, so the session falls back to a registration of exactly the slice: counting its
 * open registrations shows each one closed at final, cancel, expiry, transport loss and shutdown.
 */
class StagingAccessEndsTest {

    @Test
    void everyEndClosesTheStagingAccess() throws Exception {
        Harness h = new Harness();
        // the fake pool registers its memory at the first borrow: count from after it
        assertEquals(RcStatus.OK, h.core.cancel(h.prepare(Op.GET, 4096).sessionId(), Harness.ALICE));
        int base = h.transport.regionCount();

        PrepareResponse cancelled = h.prepare(Op.PUT, 4096);
        assertEquals(base + 1, h.transport.regionCount(), "PREPARE opened the slice");
        assertNotEquals(0, cancelled.stagingRegion().rkey());
        assertEquals(4096, cancelled.stagingRegion().length(), "exactly the session's bytes");
        assertEquals(RcStatus.OK, h.core.cancel(cancelled.sessionId(), Harness.ALICE));
        assertEquals(base, h.transport.regionCount(), "cancel");

        h.prepare(Op.PUT, 4096);
        assertEquals(base + 1, h.transport.regionCount());
        h.clock.advance(60_000);
        h.core.reapPass();
        assertEquals(base, h.transport.regionCount(), "expiry");

        SessionId put = h.completedPut(4096); // its client registers its memory on the same transport: + 1
        assertEquals(base + 2, h.transport.regionCount());
        SessionBuffer view = h.core.getPutData(put).orElseThrow();
        assertEquals(RcStatus.OK, h.core.finishPut(put, view.handle(), true, "etag", ""));
        assertEquals(base + 1, h.transport.regionCount(), "final");
        base = h.transport.regionCount();
        PrepareResponse get = h.prepare(Op.GET, 4096);
        assertEquals(base, h.transport.regionCount(), "a GET opens nothing on the server");
        assertEquals(RcStatus.OK, h.core.cancel(get.sessionId(), Harness.ALICE)); // its buffer is reused next

        h.prepare(Op.PUT, 4096);
        assertEquals(base + 1, h.transport.regionCount());
        h.core.transportGone(h.transport);
        assertEquals(base, h.transport.regionCount(), "transport loss");

        Harness again = new Harness();
        assertEquals(RcStatus.OK, again.core.cancel(again.prepare(Op.GET, 4096).sessionId(), Harness.ALICE));
        int base2 = again.transport.regionCount();
        again.prepare(Op.PUT, 4096);
        again.core.shutdown(Duration.ofMillis(100));
        assertEquals(base2, again.transport.regionCount(), "shutdown");
        assertEquals(0, again.pool.outstanding.get(), "and the leases are back");
    }
}
