package org.objrdma.transport.tcp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** Every configuration value is checked at activation; a bad one names itself and nothing is built. */
class TcpSettingsTest {

    private static TcpSettings settings(Map<String, Object> overrides) {
        return TcpSettings.from(TcpSettings.configWith(overrides), null);
    }

    @Test
    void defaultsAreSafeAndDocumented() throws Exception {
        TcpSettings s = TcpSettings.loopbackDefaults();
        assertEquals(InetAddress.getByName("127.0.0.1"), s.bindAddress());
        assertEquals(s.bindAddress(), s.advertisedAddress());
        assertEquals(0, s.port());
        assertEquals(0, s.sendBuffer());
        assertTrue(s.noDelay());
        assertEquals(4 << 20, s.frameSize());
        assertEquals(Duration.ofSeconds(1), s.keepaliveInterval());
        assertEquals(Duration.ofSeconds(5), s.keepaliveTimeout());
        assertEquals(Duration.ofMillis(200), s.rnrWait());
        assertEquals(32, s.keyLength());
        assertEquals(0, s.serviceRanking());
        // every element of the config annotation has a default, so the component activates unconfigured
        for (Method m : TcpTransportConfig.class.getDeclaredMethods()) {
            assertTrue(m.getDefaultValue() != null, m.getName() + " has no default");
        }
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
        "port, 70000, port",
        "port, -1, port",
        "socket.send.buffer, 100, socket.send.buffer",
        "socket.send.buffer, -5, socket.send.buffer",
        "socket.receive.buffer, 1, socket.receive.buffer",
        "frame.size, 1024, frame.size",
        "frame.size, 134217728, frame.size",
        "keepalive.interval.ms, 5, keepalive.interval.ms",
        "keepalive.timeout.ms, 1500, keepalive.timeout.ms",
        "rnr.wait.ms, 5000, rnr.wait.ms",
        "rnr.wait.ms, -1, rnr.wait.ms",
        "handshake.timeout.ms, 0, handshake.timeout.ms",
        "region.close.grace.ms, 0, region.close.grace.ms",
        "shutdown.timeout.ms, 0, shutdown.timeout.ms",
        "max.channels, 0, max.channels",
        "max.regions, 0, max.regions",
        "max.queue.depth, 0, max.queue.depth",
        "key.length, 15, key.length",
        "key.length, 65, key.length",
        "max.grants.per.channel, 0, max.grants.per.channel",
        "writer.queue.frames, 15, writer.queue.frames",
        "max.pending.handshakes, 0, max.pending.handshakes",
        "max.pending.handshakes.per.address, 0, max.pending.handshakes.per.address",
        "max.pending.handshakes.per.address, 257, max.pending.handshakes.per.address",
        "max.connections, 255, max.connections",
    })
    void badNumbersAreRefusedByName(String property, String value, String named) {
        Map<String, Object> o = new HashMap<>();
        Object typed = property.endsWith(".ms") || property.equals("writer.queue.bytes")
                ? (Object) Long.parseLong(value) : (Object) Integer.parseInt(value);
        o.put(property, typed);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> settings(o));
        assertTrue(e.getMessage().contains(named), e.getMessage());
    }

    @Test
    void addressesMustBeLiteralAndDialable() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> settings(Map.of("bind.address", "0.0.0.0")));
        assertTrue(e.getMessage().contains("advertised.address"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> settings(Map.of("bind.address", "localhost")));
        assertTrue(e.getMessage().contains("literal"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> settings(Map.of("bind.address", "")));
        assertTrue(e.getMessage().contains("bind.address"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> settings(Map.of("bind.address", "::", "advertised.address", "::")));
        assertTrue(e.getMessage().contains("advertised.address"), e.getMessage());

        TcpSettings wildcard = settings(Map.of("bind.address", "::", "advertised.address", "192.0.2.7"));
        assertTrue(wildcard.bindAddress().isAnyLocalAddress());
        assertFalse(wildcard.advertisedAddress().isAnyLocalAddress());
    }

    @Test
    void peerLimitsHaveDocumentedDefaultsAndAreChecked() {
        PeerLimits l = TcpSettings.loopbackDefaults().limits();
        assertEquals(PeerLimits.DEFAULTS, l);
        assertEquals(4096, l.maxGrantsPerChannel());
        assertEquals(8192, l.writerQueueFrames());
        assertEquals(64L << 20, l.writerQueueBytes());
        assertEquals(256, l.maxPendingHandshakes());
        assertEquals(32, l.maxPendingHandshakesPerSource());
        assertEquals(1024, l.maxConnections());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> settings(Map.of("writer.queue.bytes", 100L)));
        assertTrue(e.getMessage().contains("writer.queue.bytes"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> TcpSettings.fromProperties(Map.of("max.connections", "lots")));
        assertTrue(e.getMessage().contains("max.connections"), e.getMessage());
        assertEquals(7, TcpSettings.fromProperties(Map.of("max.grants.per.channel", "7")).limits().maxGrantsPerChannel());
    }

    @Test
    void rankingFromACfgStringOrAnyWholeNumber() {
        assertEquals(5, TcpSettings.from(TcpSettings.defaultConfig(), "5").serviceRanking());
        assertEquals(-3, TcpSettings.from(TcpSettings.defaultConfig(), " -3 ").serviceRanking());
        assertEquals(5, TcpSettings.from(TcpSettings.defaultConfig(), 5).serviceRanking());
        assertEquals(9, TcpSettings.from(TcpSettings.defaultConfig(), 9L).serviceRanking());
        assertEquals(0, TcpSettings.from(TcpSettings.defaultConfig(), null).serviceRanking());
    }

    @Test
    void rankingThatIsNoIntIsRefusedNamingTheProperty() {
        for (Object bad : new Object[] {"five", "5.5", "", 1L << 40, 2.0d, Boolean.TRUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> TcpSettings.from(TcpSettings.defaultConfig(), bad));
            assertTrue(e.getMessage().startsWith("service.ranking"), e.getMessage());
        }
    }

    @Test
    void servicePropertiesCarryTheRankingAsAnIntegerAndDropComponentProperties() {
        java.util.Map<String, Object> component = new java.util.HashMap<>();
        component.put("service.ranking", "7");
        component.put("component.id", 3L);
        component.put("component.name", TcpTransportComponent.PID);
        component.put(".hidden", "x");
        component.put("objrdma.transport.name", "tcp");
        component.put("port", "0");
        TcpSettings settings = TcpSettings.from(TcpSettings.defaultConfig(), component.get("service.ranking"));
        var published = TcpTransportComponent.serviceProperties(component, settings);
        assertEquals(Integer.valueOf(7), published.get("service.ranking"));
        assertEquals("tcp", published.get("objrdma.transport.name"));
        assertEquals(java.util.Set.of("service.ranking", "objrdma.transport.name", "port"), published.keySet());
    }
}
