package org.objrdma.cuobj.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.objrdma.testsupport.Configs;
import org.objrdma.wire.AgentKeys;
import org.objrdma.cuobj.CuObjDelayMode;
import org.objrdma.cuobj.CuObjRDMATunable;

/** Every rule of the {@code org.objrdma.cuobj} configuration: defaults, each bad property named, the key rules. */
class ServerSettingsTest {
    private static final String KEY = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

    /** A configuration whose properties (by their dotted names) are {@code overrides}, defaults otherwise. */
    static CuObjServerConfig config(Map<String, Object> overrides) {
        return Configs.of(CuObjServerConfig.class, overrides);
    }

    private static Map<String, Object> keyed(Object... pairs) {
        Map<String, Object> m = new HashMap<>();
        m.put("agent.key", KEY);
        for (int i = 0; i < pairs.length; i += 2) {
            m.put((String) pairs[i], pairs[i + 1]);
        }
        return m;
    }

    private static void refused(String property, Object... pairs) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ServerSettings.from(config(keyed(pairs))));
        assertTrue(e.getMessage().startsWith(property + " "), "message must name " + property + ": " + e.getMessage());
    }

    @Test
    void theDefaultsAreCuObjsAndTheKeyIsRead() {
        ServerSettings s = ServerSettings.from(config(keyed()));
        assertEquals("127.0.0.1", s.ip());
        assertEquals(0, s.port());
        assertEquals(1001, s.proto());
        CuObjRDMATunable t = s.tunable();
        assertEquals(128, t.getNumDcis());
        assertEquals(640, t.getCqDepth());
        assertEquals(0xffeeddccL, t.getDcKey());
        assertEquals(16, t.getTimeout());
        assertEquals(4, t.getHopLimit());
        assertEquals(5000, t.getDelayInterval());
        assertEquals(CuObjDelayMode.CUOBJ_DELAY_BATCH, t.getDelayMode());
        assertTrue(t.getQPResetOnFailure());
        assertEquals(7, t.getRetryCount());
        assertEquals(96, t.getTrafficClass());
        assertEquals(0, t.getMaxRdAtomic());
        assertEquals(10, t.getMaxSge());
        assertEquals(60_000, t.getTransferTimeoutMs());
        assertEquals(256, t.getConnectionCacheSize());
        assertArrayEquals(AgentKeys.parse(KEY).value(), t.getAgentKey());
        assertEquals(4, s.telemetryFlags());
        assertEquals(0, s.telemetryOpFlags());
        assertTrue(t.validate().isEmpty());
    }

    @Test
    void withoutAnAgentKeyTheServerRunsPerPrincipalAndABadKeyIsRefused() {
        ServerSettings perPrincipal = ServerSettings.from(config(Map.of()));
        assertNull(perPrincipal.tunable().getAgentKey(), "no shared key");
        assertFalse(perPrincipal.tunable().isAgentKeyFromDcKey());
        ServerSettings compat = ServerSettings.from(config(Map.of("agent.key.from.dc.key", true, "dc.key", "12345")));
        assertTrue(compat.tunable().isAgentKeyFromDcKey());
        assertEquals(12345, compat.tunable().getDcKey());
        refused("agent.key", "agent.key", "abcd");
        refused("agent.key", "agent.key", "not-a-key-of-any-kind!");
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> ServerSettings.from(config(keyed("agent.key", "ab".repeat(70)))));
        assertFalse(bad.getMessage().contains("ab".repeat(70)), "the key is never echoed");
        assertArrayEquals(new byte[32], ServerSettings.from(config(keyed("agent.key",
                "base64:" + java.util.Base64.getEncoder().encodeToString(new byte[32])))).tunable().getAgentKey());
    }

    @Test
    void eachBadPropertyIsNamed() {
        refused("ip", "ip", "localhost");
        refused("ip", "ip", "[::1]");
        refused("ip", "ip", "");
        refused("port", "port", 65536);
        refused("port", "port", -1);
        refused("num.dcis", "num.dcis", 0);
        refused("num.dcis", "num.dcis", 65536);
        refused("cq.depth", "cq.depth", 0L);
        refused("dc.key", "dc.key", "0xzz");
        refused("dc.key", "dc.key", "-1");
        IllegalArgumentException badDcKey = assertThrows(IllegalArgumentException.class,
                () -> ServerSettings.from(config(keyed("dc.key", "0x5ecre7zz"))));
        assertFalse(badDcKey.getMessage().contains("5ecre7zz"), "the DC key is never echoed: " + badDcKey.getMessage());
        refused("ibv.poll.max.comp.event", "ibv.poll.max.comp.event", 0);
        refused("service.level", "service.level", 16);
        refused("timeout", "timeout", 32);
        refused("hop.limit", "hop.limit", 256);
        refused("pkey.index", "pkey.index", -1);
        refused("max.wr", "max.wr", 0);
        refused("max.sge", "max.sge", 0);
        refused("delay.interval", "delay.interval", -1L);
        refused("delay.mode", "delay.mode", "SOMETIMES");
        refused("delay.mode", "delay.mode", "CUOBJ_DELAY_INVALID");
        refused("retry.cnt", "retry.cnt", 8);
        refused("traffic.class", "traffic.class", 256);
        refused("max.rd.atomic", "max.rd.atomic", 256);
        refused("transfer.timeout.ms", "transfer.timeout.ms", 0L);
        refused("connection.cache.size", "connection.cache.size", 0);
        refused("telemetry.flags", "telemetry.flags", 8);
        refused("telemetry.op.flags", "telemetry.op.flags", 4);
        refused("allow.addresses", "allow.addresses", "localhost");
        refused("allow.addresses", "allow.addresses", "127.0.0.1/8");
        refused("allow.addresses", "allow.addresses", "10.0.0.0/33");
        refused("deny.addresses", "deny.addresses", "privat");
        refused("deny.addresses", "deny.addresses", "private, 10.0.0.1/8");
        refused("dial.failure.delay.ms", "dial.failure.delay.ms", 99L);
        refused("dial.failure.delay.ms", "dial.failure.delay.ms", 60_001L);
    }

    @Test
    void acceptedSpellings() {
        assertEquals(0xffeeddccL, ServerSettings.from(config(keyed("dc.key", "0XFFEEDDCC"))).tunable().getDcKey());
        assertEquals(-1L, ServerSettings.from(config(keyed("dc.key", "18446744073709551615"))).tunable().getDcKey());
        assertEquals(CuObjDelayMode.CUOBJ_DELAY_ADAPTIVE,
                ServerSettings.from(config(keyed("delay.mode", "adaptive"))).tunable().getDelayMode());
        assertEquals("fd00::10", ServerSettings.from(config(keyed("ip", " fd00::10 "))).ip());
        assertEquals("127.0.0.0/8, ::1",
                ServerSettings.from(config(keyed("allow.addresses", " 127.0.0.0/8, ::1 "))).tunable().getAllowAddresses());
        assertEquals("", ServerSettings.from(config(keyed())).tunable().getAllowAddresses(), "default: nothing extra");
        assertEquals("", ServerSettings.from(config(keyed())).tunable().getDenyAddresses(), "default: no deny list");
        assertEquals(2_500, ServerSettings.from(config(keyed())).tunable().getDialFailureDelayMs());
        assertEquals("private 198.51.100.0/24",
                ServerSettings.from(config(keyed("deny.addresses", " private 198.51.100.0/24 "))).tunable().getDenyAddresses());
        assertEquals(800, ServerSettings.from(config(keyed("dial.failure.delay.ms", 800L))).tunable()
                .getDialFailureDelayMs());
    }
}
