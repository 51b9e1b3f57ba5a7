package org.objrdma.s3.internal.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.annotation.Annotation;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.S3Settings;
import org.objrdma.s3.rdma.RdmaSettings;

/** PID org.objrdma.s3: defaults, and each bad value refused naming its property. */
class S3ServletSettingsTest {

    private static S3GatewayConfig config(String region, String domain, long skew, int xml, long put) {
        return config(region, domain, skew, xml, put, 1, 8L << 20);
    }

    private static S3GatewayConfig config(String region, String domain, long skew, int xml, long put, long rdmaMin,
            long rdmaChunk) {
        return config(region, domain, skew, xml, put, rdmaMin, rdmaChunk, "redirect", 2000, 60000);
    }

    private static S3GatewayConfig foreign(String mode, long connectMs, long readMs) {
        return config("us-east-1", "", 900, 3 << 20, 5L << 30, 1, 8L << 20, mode, connectMs, readMs);
    }

    private static S3GatewayConfig config(String region, String domain, long skew, int xml, long put, long rdmaMin,
            long rdmaChunk, String foreignSessions, long connectMs, long readMs) {
        return config(region, domain, skew, xml, put, rdmaMin, rdmaChunk, foreignSessions, connectMs, readMs, "501",
                new long[] {1024, 64, 300_000, 60_000, 30_000}, "objrdma");
    }

    /** {@code rc}: rdma.rc.max.connections, .per.source, idle, unbound and transfer timeouts (ms). */
    private static S3GatewayConfig rc(String declinedPut, long... rc) {
        return config("us-east-1", "", 900, 3 << 20, 5L << 30, 1, 8L << 20, "redirect", 2000, 60000, declinedPut, rc,
                "objrdma");
    }

    private static S3GatewayConfig statusStyle(String style) {
        return config("us-east-1", "", 900, 3 << 20, 5L << 30, 1, 8L << 20, "redirect", 2000, 60000, "501",
                new long[] {1024, 64, 300_000, 60_000, 30_000}, style);
    }

    private static S3GatewayConfig config(String region, String domain, long skew, int xml, long put, long rdmaMin,
            long rdmaChunk, String foreignSessions, long connectMs, long readMs, String declinedPut, long[] rc,
            String style) {
        return new S3GatewayConfig() {
            @Override public String rdma_declined_put() { return declinedPut; }
            @Override public String rdma_rc_status_style() { return style; }
            @Override public int rdma_rc_max_connections() { return (int) rc[0]; }
            @Override public int rdma_rc_max_connections_per_source() { return (int) rc[1]; }
            @Override public long rdma_rc_idle_timeout_ms() { return rc[2]; }
            @Override public long rdma_rc_unbound_timeout_ms() { return rc[3]; }
            @Override public long rdma_rc_transfer_timeout_ms() { return rc[4]; }
            @Override public String rcTransport_target() { return "(objectClass=*)"; }
            @Override public Class<? extends Annotation> annotationType() { return S3GatewayConfig.class; }
            @Override public String region() { return region; }
            @Override public String virtual_host_domain() { return domain; }
            @Override public long max_clock_skew() { return skew; }
            @Override public int max_xml_body_bytes() { return xml; }
            @Override public long max_put_bytes() { return put; }
            @Override public long rdma_min_bytes() { return rdmaMin; }
            @Override public long rdma_chunk_bytes() { return rdmaChunk; }
            @Override public String rdma_foreign_sessions() { return foreignSessions; }
            @Override public long rdma_forward_connect_timeout_ms() { return connectMs; }
            @Override public long rdma_forward_read_timeout_ms() { return readMs; }
            @Override public boolean sigv2_enabled() { return true; }
            @Override public boolean public_access_enabled() { return false; }
            @Override public String store_target() { return "(objectClass=*)"; }
        };
    }

    @Test
    void defaultsMatchS3() {
        S3Settings s = S3Servlet.settings(config("us-east-1", "", 900, 3 << 20, 5L << 30));
        assertEquals(S3Settings.DEFAULTS, s);
        assertEquals(Duration.ofMinutes(15), s.maxClockSkew());
    }

    private static String refused(S3GatewayConfig c) {
        return assertThrows(IllegalArgumentException.class, () -> S3Servlet.settings(c)).getMessage();
    }

    @Test
    void badValuesNameTheirProperty() {
        assertTrue(refused(config("US East", "", 900, 4096, 1)).contains("region"));
        assertTrue(refused(config("us-east-1", ".example.com", 900, 4096, 1)).contains("virtual.host.domain"));
        assertTrue(refused(config("us-east-1", "", 0, 4096, 1)).contains("max.clock.skew"));
        assertTrue(refused(config("us-east-1", "", 900, 10, 1)).contains("max.xml.body.bytes"));
        assertTrue(refused(config("us-east-1", "", 900, 4096, 0)).contains("max.put.bytes"));
    }

    @Test
    void rdmaDefaultsAndBadValues() {
        assertEquals(org.objrdma.s3.rdma.RdmaSettings.DEFAULTS,
                S3Servlet.rdmaSettings(config("us-east-1", "", 900, 3 << 20, 5L << 30)));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> S3Servlet.rdmaSettings(
                config("us-east-1", "", 900, 4096, 1, 0, 8L << 20))).getMessage().contains("rdma.min.bytes"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> S3Servlet.rdmaSettings(
                config("us-east-1", "", 900, 4096, 1, 1, 100))).getMessage().contains("rdma.chunk.bytes"));
    }

    @Test
    void foreignSessionsDefaultsToRedirectAndTakesForward() {
        RdmaSettings d = S3Servlet.rdmaSettings(foreign("redirect", 2000, 60000));
        assertEquals(RdmaSettings.DEFAULTS, d);
        assertEquals(RdmaSettings.ForeignSessions.REDIRECT, d.foreignSessions());
        RdmaSettings f = S3Servlet.rdmaSettings(foreign(" Forward ", 500, 1000));
        assertEquals(RdmaSettings.ForeignSessions.FORWARD, f.foreignSessions());
        assertEquals(Duration.ofMillis(500), f.forwardConnectTimeout());
        assertEquals(Duration.ofMillis(1000), f.forwardReadTimeout());
    }

    @Test
    void badForeignSessionValuesNameTheirProperty() {
        for (String bad : new String[] {"proxy", "", "redirect,forward"}) {
            String m = assertThrows(IllegalArgumentException.class,
                    () -> S3Servlet.rdmaSettings(foreign(bad, 2000, 60000))).getMessage();
            assertTrue(m.contains("rdma.foreign.sessions") && m.contains("'" + bad + "'"), m);
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> S3Servlet.rdmaSettings(
                foreign("forward", 0, 60000))).getMessage().contains("rdma.forward.connect.timeout.ms"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> S3Servlet.rdmaSettings(
                foreign("forward", 60001, 60000))).getMessage().contains("rdma.forward.connect.timeout.ms"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> S3Servlet.rdmaSettings(
                foreign("forward", 2000, -5))).getMessage().contains("rdma.forward.read.timeout.ms"));
    }

    @Test
    void declinedPutDefaultsTo501AndTakes200() {
        assertEquals(RdmaSettings.DeclinedPut.STATUS_501, S3Servlet.rdmaSettings(rc("501", 1024, 64, 300_000, 60_000,
                30_000)).declinedPut());
        assertEquals(RdmaSettings.DeclinedPut.STATUS_200, S3Servlet.rdmaSettings(rc(" 200 ", 1024, 64, 300_000, 60_000,
                30_000)).declinedPut());
        for (String bad : new String[] {"404", "", "cloudian"}) {
            String m = assertThrows(IllegalArgumentException.class, () -> S3Servlet.rdmaSettings(rc(bad, 1024, 64,
                    300_000, 60_000, 30_000))).getMessage();
            assertTrue(m.contains("rdma.declined.put") && m.contains("'" + bad + "'"), m);
        }
    }

    @Test
    void rcConnectionDefaultsAndBadValuesNameTheirProperty() {
        assertEquals(org.objrdma.s3.rdma.RcConnectionSettings.DEFAULTS,
                S3Servlet.rcConnectionSettings(rc("501", 1024, 64, 300_000, 60_000, 30_000)));
        String[][] rows = {
            {"0,1,300000,60000,30000", "rdma.rc.max.connections"},
            {"65537,1,300000,60000,30000", "rdma.rc.max.connections"},
            {"10,0,300000,60000,30000", "rdma.rc.max.connections.per.source"},
            {"10,11,300000,60000,30000", "rdma.rc.max.connections.per.source"},
            {"10,5,999,999,30000", "rdma.rc.idle.timeout.ms"},
            {"10,5,300000,300001,30000", "rdma.rc.unbound.timeout.ms"},
            {"10,5,300000,60000,99", "rdma.rc.transfer.timeout.ms"},
            {"10,5,300000,60000,600001", "rdma.rc.transfer.timeout.ms"},
        };
        for (String[] row : rows) {
            long[] v = java.util.Arrays.stream(row[0].split(",")).mapToLong(Long::parseLong).toArray();
            String m = assertThrows(IllegalArgumentException.class,
                    () -> S3Servlet.rcConnectionSettings(rc("501", v))).getMessage();
            assertTrue(m.contains(row[1]), row[0] + ": " + m);
        }
    }

    @Test
    void theRcStatusStyleIsObjrdmaByDefaultHipobjOnRequestAndNothingElse() {
        assertEquals(RdmaSettings.RcStatusStyle.OBJRDMA, S3Servlet.rdmaSettings(statusStyle("objrdma")).rcStatusStyle());
        assertEquals(RdmaSettings.RcStatusStyle.HIPOBJ, S3Servlet.rdmaSettings(statusStyle(" HipObj ")).rcStatusStyle());
        for (String bad : new String[] {"", "versitygw", "hip obj"}) {
            String m = assertThrows(IllegalArgumentException.class,
                    () -> S3Servlet.rdmaSettings(statusStyle(bad))).getMessage();
            assertTrue(m.contains("rdma.rc.status.style") && m.contains("objrdma or hipobj"), m);
        }
    }
}
