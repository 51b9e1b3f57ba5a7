package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.testsupport.FakeTransport;

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
        FakeTransport first = new FakeTransport("first");
        FakeTransport second = new FakeTransport("second");
        FakeStagingPool firstPool = new FakeStagingPool(first, 1 << 20);
        FakeStagingPool secondPool = new FakeStagingPool(second, 1 << 20);
        RecordingListener events = new RecordingListener();
        SessionManagerComponent component = new SessionManagerComponent();
        component.bindTransport(first);
        component.bindStagingPool(firstPool);
        component.bindTerminalListener(events);
        component.activate(SessionSettingsTest.config(Map.of("reaper.period.ms", 10L, "control.plane.only", true)));

        SessionId onFirst = component.prepare(request()).orElseThrow().sessionId();
        assertEquals(1, first.openChannels());

        // greedy replacement: SCR binds the better service, then unbinds the old one, which is still there
        component.bindTransport(second);
        component.bindStagingPool(secondPool);
        component.unbindStagingPool(firstPool);
        component.unbindTransport(first);
        assertEquals(0, events.count(onFirst), "a better transport appearing ends nothing");
        assertEquals(1, first.openChannels(), "the session keeps its channel on the old transport");
        assertEquals(1, firstPool.outstanding.get(), "and its lease");

        SessionId onSecond = component.prepare(request()).orElseThrow().sessionId();
        assertEquals(1, second.openChannels(), "new sessions use the better transport");
        assertEquals(1, first.openChannels());

        // the old transport's service goes away for good: only now do its sessions end, with a wire status
        component.unbindLiveTransport(first);
        assertEquals(TerminalReason.TRANSPORT_LOST, events.only(onFirst).reason());
        assertEquals(0, first.openChannels());
        assertEquals(0, firstPool.outstanding.get());
        assertEquals(0, events.count(onSecond));
        component.unbindLivePool(firstPool); // nothing of it is held any more
        assertEquals(0, events.count(onSecond));
        component.unbindTerminalListener(events);
        assertEquals(RcStatus.OK, component.cancel(onSecond, Harness.ALICE));
        assertEquals(0, events.count(onSecond), "an unbound listener hears nothing more");

        SessionId open = component.prepare(request()).orElseThrow().sessionId();
        component.deactivate();
        assertEquals(0, secondPool.outstanding.get(), "deactivation ended " + open);
        assertEquals(RcStatus.SHUTDOWN, component.prepare(request()).status());
        firstPool.close();
        secondPool.close();
    }

    @Test
    void byDefaultAPrepareWithoutAClientEndpointIsRefusedWithArg() {
        FakeTransport t = new FakeTransport("t");
        FakeStagingPool pool = new FakeStagingPool(t, 1 << 20);
        SessionManagerComponent component = new SessionManagerComponent();
        component.bindTransport(t);
        component.bindStagingPool(pool);
        component.activate(SessionSettingsTest.config(Map.of()));
        assertEquals(RcStatus.ARG, component.prepare(request()).status(), "no endpoint, no bytes: no session");
        assertEquals(0, t.openChannels());
        assertEquals(0, pool.borrows.get());
        component.deactivate();
        pool.close();
    }

    @Test
    void aBadConfigurationRefusesActivation() {
        SessionManagerComponent component = new SessionManagerComponent();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> component.activate(SessionSettingsTest.config(Map.of("reaper.period.ms", 500L))));
        assertEquals(true, e.getMessage().contains("reaper.period.ms"), e.getMessage());
    }

    /**
     * The log lines (slf4j-simple writes to {@code System.err}) of one activation with {@code config}, one PREPARE
     * of {@code size} bytes (its status returned in {@code status[0]}) and the deactivation.
     */
    private static String activationLog(Map<String, Object> config, int size, RcStatus[] status) {
        FakeTransport t = new FakeTransport("t");
        FakeStagingPool pool = new FakeStagingPool(t, 1 << 20);
        SessionManagerComponent component = new SessionManagerComponent();
        component.bindTransport(t);
        component.bindStagingPool(pool);
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            component.activate(SessionSettingsTest.config(config));
            status[0] = component.prepare(new PrepareRequest(Harness.ALICE, Op.GET, Harness.TARGET, 0, size, Harness.PSN,
                    Harness.COOKIE, null, null)).status();
            component.deactivate();
        } finally {
            System.setErr(stderr);
            pool.close();
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void theDeprecatedStagingByteKeysAreNamedInOneWarningAtActivationAndLimitNothing() {
        RcStatus[] status = new RcStatus[1];
        String defaults = activationLog(Map.of("control.plane.only", true), 1000, status);
        assertEquals(RcStatus.OK, status[0]);
        assertEquals(false, defaults.contains("deprecated"), defaults);
        String old = activationLog(Map.of("control.plane.only", true, "max.user.staging.bytes", 600L), 1000, status);
        assertEquals(RcStatus.OK, status[0], "600 bytes per principal no longer limits a 1000-byte PREPARE");
        long warnings = old.lines().filter(l -> l.contains("WARN") && l.contains("max.user.staging.bytes (600)")
                && l.contains("deprecated and ignored") && l.contains("max.bytes.per.principal of org.objrdma.staging"))
                .count();
        assertEquals(1, warnings, old);
    }

    @Test
    void aBadChangeOnTheRunningComponentIsRefusedAndTheCoreKeepsItsSettings() {
        FakeTransport t = new FakeTransport("t");
        FakeStagingPool pool = new FakeStagingPool(t, 1 << 20);
        SessionManagerComponent component = new SessionManagerComponent();
        component.bindTransport(t);
        component.bindStagingPool(pool);
        component.activate(SessionSettingsTest.config(Map.of("control.plane.only", true)));
        SessionId before = component.prepare(request()).orElseThrow().sessionId();
        component.modified(SessionSettingsTest.config(Map.of("max.sessions", 10L, "max.user.sessions", 11L)));
        assertEquals(1024, component.limits().maxSessions(), "the refused change changes nothing");
        assertEquals(RcStatus.OK, component.cancel(before, Harness.ALICE), "the live session is still there");
        component.deactivate();
        pool.close();
    }

    @Test
    void aValidChangeRestartsTheCoreEndingItsSessions() {
        FakeTransport t = new FakeTransport("t");
        FakeStagingPool pool = new FakeStagingPool(t, 1 << 20);
        RecordingListener events = new RecordingListener();
        SessionManagerComponent component = new SessionManagerComponent();
        component.bindTransport(t);
        component.bindStagingPool(pool);
        component.bindTerminalListener(events);
        component.activate(SessionSettingsTest.config(Map.of("control.plane.only", true)));
        SessionId before = component.prepare(request()).orElseThrow().sessionId();
        component.modified(SessionSettingsTest.config(Map.of("control.plane.only", true, "max.sessions", 512L)));
        assertEquals(512, component.limits().maxSessions());
        assertEquals(TerminalReason.SHUTDOWN, events.only(before).reason(), "the old core's session ended");
        SessionId after = component.prepare(request()).orElseThrow().sessionId();
        assertEquals(RcStatus.OK, component.cancel(after, Harness.ALICE), "the new core serves");
        component.deactivate();
        pool.close();
    }

    @Test
    void theSettingsTextIgnoresOnlyTheTransportTarget() {
        String base = SessionManagerComponent.settingsText(SessionSettingsTest.config(Map.of()));
        assertEquals(base, SessionManagerComponent.settingsText(SessionSettingsTest.config(
                Map.of("transport.target", "(objrdma.transport.name=tcp)"))), "a pin restarts nothing");
        assertEquals(false, base.equals(SessionManagerComponent.settingsText(SessionSettingsTest.config(
                Map.of("max.sessions", 512L)))), "a limit does");
        assertEquals(false, base.equals(SessionManagerComponent.settingsText(SessionSettingsTest.config(
                Map.of("allow.addresses", "127.0.0.0/8")))), "so does the allow list");
    }
}
