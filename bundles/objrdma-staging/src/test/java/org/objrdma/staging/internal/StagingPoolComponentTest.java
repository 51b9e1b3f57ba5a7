package org.objrdma.staging.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.staging.internal.TestSupport.ALICE;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingStatus;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.testsupport.CountingTelemetry;
import org.objrdma.testsupport.FakeTransport;

/** The DS component driven the way SCR drives it: bind, activate, rebind, unbind, deactivate. */
class StagingPoolComponentTest {

    private static final Map<String, Object> SMALL = Map.of("max_buffer_size", 65536L, "shutdown_timeout", 100L);

    @Test
    void aBadConfigurationFailsActivationNamingTheProperty() {
        StagingPoolComponent c = new StagingPoolComponent();
        c.bindTransport(TestSupport.recordingTransport("t"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> c.activate(TestSupport.config(Map.of("max_total_bytes", 0L))));
        assertTrue(e.getMessage().contains("max.total.bytes"), e.getMessage());
        StagingException notActive = assertThrows(StagingException.class, () -> c.borrow(1, ALICE, "s"));
        assertEquals(StagingStatus.CLOSED, notActive.status());
    }

    @Test
    void aGreedyRebindMovesNewBorrowsToTheNewTransport() throws Exception {
        StagingPoolComponent c = new StagingPoolComponent();
        FakeTransport first = TestSupport.recordingTransport("first");
        FakeTransport second = TestSupport.recordingTransport("second");
        CountingTelemetry telemetry = new CountingTelemetry();
        c.bindTelemetry(telemetry);
        c.bindTransport(first);
        c.activate(TestSupport.config(SMALL));
        assertEquals(65536, c.maxBufferSize());

        StagingLease onFirst = c.borrow(4096, ALICE, "s1");
        c.borrow(8192, ALICE, "s2").release();
        assertEquals("first", onFirst.region().transportName());

        // SCR's order for a greedy dynamic reference: the better service is bound, then the old one unbound
        c.bindTransport(second);
        c.unbindTransport(first);
        StagingLease onSecond = c.borrow(4096, ALICE, "s3");
        assertEquals("second", onSecond.region().transportName());
        assertEquals(0, first.deregistered(), "the first transport is still there: its buffers stay valid");
        // its service really goes away: idle buffers go at once, the lent one when it comes back
        c.unbindLiveTransport(first);
        assertEquals(1, first.deregistered(), "the idle buffer of the first transport went at once");
        onFirst.release();
        assertEquals(2, first.deregistered());
        assertEquals(0, first.regionCount());

        // the last transport goes: a borrow racing with deactivation gets NO_TRANSPORT
        c.unbindTransport(second);
        StagingException none = assertThrows(StagingException.class, () -> c.borrow(4096, ALICE, "s4"));
        assertEquals(StagingStatus.NO_TRANSPORT, none.status());

        onSecond.release();
        assertEquals(3, telemetry.value(Counter.STAGING_BORROWS));
        assertEquals(3, telemetry.value(Counter.STAGING_RETURNS));
        c.unbindTelemetry(telemetry);
        c.deactivate();
        assertEquals(0, second.regionCount());
        StagingException closed = assertThrows(StagingException.class, () -> c.borrow(4096, ALICE, "s5"));
        assertEquals(StagingStatus.CLOSED, closed.status());
        assertEquals(3, c.stats().borrows());
    }

    @Test
    void anUnbindOfAnOlderServiceAfterARebindChangesNothing() throws Exception {
        StagingPoolComponent c = new StagingPoolComponent();
        FakeTransport first = TestSupport.recordingTransport("first");
        FakeTransport second = TestSupport.recordingTransport("second");
        c.bindTransport(first);
        c.activate(TestSupport.config(SMALL));
        c.bindTransport(second);
        c.unbindTransport(first);
        c.unbindTransport(first); // late or repeated: ignored
        StagingLease l = c.borrow(100, ALICE, "s");
        assertEquals("second", l.region().transportName());
        l.release();
        c.deactivate();
    }
}
