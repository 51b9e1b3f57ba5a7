package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.SessionLimits;
import org.objrdma.testsupport.Configs;

/** Every configuration value is validated at activation, and the error names the property. */
class SessionSettingsTest {

    /** An instance of the metatype annotation as DS would build it: defaults, overridden by {@code values}. */
    static SessionConfiguration config(Map<String, Object> values) {
        return Configs.of(SessionConfiguration.class, values);
    }

    @Test
    void theMetatypeDefaultsAreValidAndMatchTheBuilder() {
        SessionSettings fromComponent = SessionManagerComponent.settingsFrom(config(Map.of()));
        assertEquals(SessionSettings.builder().build(), fromComponent);
        SessionLimits limits = fromComponent.toLimits();
        assertEquals(1024, limits.maxSessions());
        assertEquals(Duration.ofSeconds(30), limits.prepTimeout());
        assertEquals(Duration.ofMinutes(1), limits.leaseTimeout());
        assertEquals(64, limits.maxReadySlots());
        assertEquals(32, limits.maxStageSlots());
        assertEquals(50, fromComponent.reaperPeriodMs());
    }

    @Test
    void configuredValuesArriveUnderTheirDottedNames() {
        SessionSettings s = SessionManagerComponent.settingsFrom(config(Map.of("max.sessions", 5000L,
                "max.user.staging.bytes", 12345L, "reaper.period.ms", 100L, "dev.name", "mlx5_1", "control.plane.only", true)));
        assertEquals(5000, s.maxSessions());
        assertEquals(12345, s.maxUserStagingBytes());
        assertEquals(100, s.reaperPeriodMs());
        assertEquals("mlx5_1", s.devName());
        assertTrue(s.controlPlaneOnly());
        assertEquals(false, SessionManagerComponent.settingsFrom(config(Map.of())).controlPlaneOnly(),
                "control plane only is never the default");
    }

    @Test
    void theDeprecatedStagingByteKeysAreAcceptedUnvalidatedAndNamedInOneWarning() {
        assertEquals(null, SessionSettings.builder().build().deprecatedStagingKeys(), "defaults: no warning");
        // values the old byte ledger refused: an old configuration still activates, the keys change nothing
        SessionSettings old = SessionManagerComponent.settingsFrom(config(Map.of("max.staging.bytes", 100L,
                "max.user.staging.bytes", 101L)));
        String warning = old.deprecatedStagingKeys();
        assertTrue(warning.contains("max.staging.bytes (100)") && warning.contains("max.user.staging.bytes (101)")
                && warning.contains("deprecated and ignored"), warning);
        assertTrue(warning.contains("max.total.bytes and max.bytes.per.principal of org.objrdma.staging"), warning);
        assertTrue(SessionSettings.builder().maxStagingBytes(-1).build().deprecatedStagingKeys() != null);
    }

    private static void refused(String property, UnaryOperator<SessionSettings.Builder> change) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> change.apply(SessionSettings.builder()).build());
        assertTrue(e.getMessage().contains(property + " = "), "message must name " + property + ": " + e.getMessage());
    }

    @Test
    void zeroNegativeAndInconsistentValuesAreRefusedByName() {
        refused("max.sessions", b -> b.maxSessions(0));
        refused("max.sessions", b -> b.maxSessions(SessionSettings.MAX_SESSIONS_LIMIT + 1));
        refused("max.qps", b -> b.maxQps(SessionSettings.MAX_SESSIONS_LIMIT + 1));
        refused("max.user.sessions", b -> b.maxUserSessions(0));
        refused("max.user.sessions", b -> b.maxSessions(10).maxUserSessions(11));
        refused("max.qps", b -> b.maxQps(0));
        refused("max.user.qps", b -> b.maxUserQps(0));
        refused("max.user.qps", b -> b.maxQps(2).maxUserQps(3));
        refused("prep.timeout.ms", b -> b.prepTimeoutMs(0));
        refused("exec.timeout.ms", b -> b.execTimeoutMs(-5));
        refused("exec.timeout.ms", b -> b.execTimeoutMs(SessionSettings.MAX_TIMEOUT_MS + 1));
        refused("lease.timeout.ms", b -> b.leaseTimeoutMs(0));
        refused("shutdown.timeout.ms", b -> b.shutdownTimeoutMs(0));
        refused("max.ready.slots", b -> b.maxReadySlots(0));
        refused("max.stage.slots", b -> b.maxStageSlots(SessionSettings.MAX_SLOTS + 1));
        refused("reaper.period.ms", b -> b.reaperPeriodMs(0));
        refused("reaper.period.ms", b -> b.reaperPeriodMs(101));
        refused("dev.name", b -> b.devName("mlx5 0; rm"));
        refused("allow.addresses", b -> b.allowAddresses("localhost"));
        refused("allow.addresses", b -> b.allowAddresses("127.0.0.1/33"));
        refused("allow.addresses", b -> b.allowAddresses("10.0.0.1/8"));
        refused("deny.addresses", b -> b.denyAddresses("privat"));
        refused("deny.addresses", b -> b.denyAddresses("10.0.0.0/33"));
        refused("dial.failure.delay.ms", b -> b.dialFailureDelayMs(99));
        refused("dial.failure.delay.ms", b -> b.dialFailureDelayMs(60_001));
    }

    @Test
    void theDenyListAndTheFailedDialDelayArriveFromTheConfiguration() {
        SessionSettings defaults = SessionManagerComponent.settingsFrom(config(Map.of()));
        assertEquals("", defaults.addressPolicy().denyList(), "no deny list by default");
        assertEquals(Duration.ofMillis(2_500), defaults.dialPacing().delay());
        SessionSettings s = SessionManagerComponent.settingsFrom(config(Map.of("deny.addresses", "private 198.51.100.0/24",
                "dial.failure.delay.ms", 800L)));
        assertEquals("10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,fc00:0:0:0:0:0:0:0/7,198.51.100.0/24",
                s.addressPolicy().denyList());
        assertEquals(Duration.ofMillis(800), s.dialPacing().delay());
        assertEquals(s, s.toBuilder().build(), "the deny list and the delay survive toBuilder");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SessionManagerComponent.settingsFrom(config(Map.of("deny.addresses", "private, intranet"))));
        assertTrue(e.getMessage().contains("deny.addresses") && e.getMessage().contains("'intranet'"), e.getMessage());
    }

    @Test
    void theComponentRefusesABadAllowListNamingTheProperty() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SessionManagerComponent.settingsFrom(config(Map.of("allow.addresses", "127.0.0.0/8, not-an-ip"))));
        assertTrue(e.getMessage().contains("allow.addresses"), e.getMessage());
        assertEquals("127.0.0.0/8,0:0:0:0:0:0:0:1/128", SessionManagerComponent.settingsFrom(
                config(Map.of("allow.addresses", "127.0.0.0/8 ::1"))).addressPolicy().allowList());
    }

    @Test
    void theComponentRefusesABadConfigurationNamingTheProperty() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SessionManagerComponent.settingsFrom(config(Map.of("max.user.sessions", 0L))));
        assertTrue(e.getMessage().contains("max.user.sessions"), e.getMessage());
    }

    @Test
    void boundaryValuesAreAccepted() {
        SessionSettings s = SessionSettings.builder().maxSessions(1).maxUserSessions(1).maxStagingBytes(1)
                .maxUserStagingBytes(1).maxQps(1).maxUserQps(1).prepTimeoutMs(1).execTimeoutMs(1).leaseTimeoutMs(1)
                .shutdownTimeoutMs(1).maxReadySlots(1).maxStageSlots(1).reaperPeriodMs(100)
                .controlPlaneOnly(true).devName(" mlx5_0 ").build();
        assertEquals("mlx5_0", s.devName(), "surrounding blanks are trimmed");
        assertEquals(s, s.toBuilder().build());
    }
}
