package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.TerminalReason;

/**
 * The DS shell without a framework, driven the way SCR drives it: binds before activate, a greedy
 * replacement binds the new transport before unbinding the old, deactivate shuts the core down.
 */
class SessionManagerComponentTest {

    private static PrepareRequest request() {
        return new PrepareRequest(Harness.ALICE, Op.GET, Harness.TARGET, 0, 64, Harness.PSN, Harness.COOKIE, null, null);
    }

    @Test
    void bindsActivatesSwapsTransportsAndShutsDown() {
        LoopbackTransport first = new LoopbackTransport("first");
        LoopbackTransport second = new LoopbackTransport("second");
        FakeStagingPool firstPool = new FakeStagingPool(first, 1 << 20);
        FakeStagingPool secondPool = new FakeStagingPool(second, 1 << 20);
        RecordingListener events = new RecordingListener();
        SessionManagerComponent component = new SessionManagerComponent();
        component.bindTransport(first);
        component.bindStagingPool(firstPool);
        component.bindTerminalListener(events);
        component.activate(SessionSettingsTest.config(Map.of("reaper.period.ms", 10L)));

        SessionId onFirst = component.prepare(request()).orElseThrow().sessionId();
        assertEquals(1, first.openChannels());

        // greedy replacement: SCR binds the better service, then unbinds the old one
        component.bindTransport(second);
        component.bindStagingPool(secondPool);
        component.unbindStagingPool(firstPool);
        component.unbindTransport(first);
        assertEquals(TerminalReason.TRANSPORT_LOST, events.only(onFirst).reason());
        assertEquals(0, first.openChannels());
        assertEquals(0, firstPool.outstanding.get());

        SessionId onSecond = component.prepare(request()).orElseThrow().sessionId();
        assertEquals(1, second.openChannels());
        component.unbindTerminalListener(events);
        assertEquals(RcStatus.OK, component.cancel(onSecond, Harness.ALICE));
        assertEquals(0, events.count(onSecond), "an unbound listener hears nothing more");

        SessionId open = component.prepare(request()).orElseThrow().sessionId();
        component.deactivate();
        assertEquals(0, secondPool.outstanding.get(), "deactivation ended " + open);
        assertEquals(RcStatus.INTERNAL, component.prepare(request()).status());
        firstPool.close();
        secondPool.close();
    }

    @Test
    void aBadConfigurationRefusesActivation() {
        SessionManagerComponent component = new SessionManagerComponent();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> component.activate(SessionSettingsTest.config(Map.of("reaper.period.ms", 500L))));
        assertEquals(true, e.getMessage().contains("reaper.period.ms"), e.getMessage());
    }
}
