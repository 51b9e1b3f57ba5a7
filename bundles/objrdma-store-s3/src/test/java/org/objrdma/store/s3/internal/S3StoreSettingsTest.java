package org.objrdma.store.s3.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every configuration rule of PID {@code org.objrdma.store.s3}: good values parse, bad ones name the property. */
class S3StoreSettingsTest {
    private static Map<String, Object> valid() {
        Map<String, Object> p = new HashMap<>();
        p.put("endpoint", "https://rgw.example:7480");
        p.put("service.access.key", "SERVICE");
        p.put("service.secret.key", "service-secret");
        p.put("credentials", "ALICEKEY:alice-secret-1234,BOBKEY:bob-secret-5678");
        return p;
    }

    private static String refused(String property, Object value) {
        Map<String, Object> p = valid();
        if (value == null) {
            p.remove(property);
        } else {
            p.put(property, value);
        }
        return assertThrows(IllegalArgumentException.class, () -> S3StoreSettings.from(p), property + "=" + value)
                .getMessage();
    }

    @Test
    void defaults() {
        S3StoreSettings s = S3StoreSettings.from(valid());
        assertEquals("us-east-1", s.region());
        assertTrue(s.pathStyle());
        assertEquals(64, s.maxConnections());
        assertEquals(3, s.maxRetries());
        assertEquals(64L << 20, s.multipartThreshold());
        assertEquals(16L << 20, s.partSize());
        assertEquals("objrdma-system", s.systemBucket());
        assertEquals(30_000, s.failoverCooldownMs());
        assertEquals(1000, s.catalogCacheMs());
        assertEquals(java.util.Set.of(502, 503, 504), s.failoverStatuses());
        assertEquals(1, s.endpoints().size());
        assertEquals("p-b", new S3StoreSettings(s.endpoints(), s.region(), false, "k", "s", null, "", 1, 1, 1, 0,
                5L << 20, 5L << 20, "p-", "sys-bucket", s.users(), 0, java.util.Set.of(), 0).remoteBucket("b"));
        assertEquals(2, s.users().size());
        assertFalse(s.users().toString().contains("secret"), "secrets never printed");
        Map<String, Object> withTrust = valid();
        withTrust.put("tls.truststore", System.getProperty("java.home") + "/lib/security/cacerts");
        withTrust.put("tls.truststore.password", "trust-password");
        String printed = S3StoreSettings.from(withTrust).toString();
        for (String secret : new String[] {"service-secret", "trust-password", "alice-secret-1234", "bob-secret-5678"}) {
            assertFalse(printed.contains(secret), secret + " printed: " + printed);
        }
        assertTrue(printed.contains("SERVICE") && printed.contains("rgw.example"), printed);
    }

    @Test
    void severalEndpointsOfOneClusterInOrderAndFailoverSettings() {
        Map<String, Object> p = valid();
        p.put("endpoint", "http://127.0.0.1:7480, http://127.0.0.1:7481 ,https://rgw.example");
        p.put("failover.cooldown.ms", "0");
        p.put("failover.statuses", "503, 500");
        S3StoreSettings s = S3StoreSettings.from(p);
        assertEquals(List.of(URI.create("http://127.0.0.1:7480"), URI.create("http://127.0.0.1:7481"),
                URI.create("https://rgw.example")), s.endpoints());
        assertEquals(URI.create("http://127.0.0.1:7480"), s.endpoint());
        assertEquals(0, s.failoverCooldownMs());
        assertEquals(java.util.Set.of(500, 503), s.failoverStatuses());
        p.put("failover.statuses", "");
        assertEquals(java.util.Set.of(), S3StoreSettings.from(p).failoverStatuses());
    }

    @Test
    void badValuesNameTheirProperty() {
        assertTrue(refused("endpoint", null).startsWith("endpoint is required"));
        assertTrue(refused("endpoint", "ftp://x").startsWith("endpoint:"));
        assertTrue(refused("endpoint", "http:///nohost").startsWith("endpoint:"));
        assertTrue(refused("endpoint", "http://h/?q=1").startsWith("endpoint:"));
        assertTrue(refused("endpoint", "http://h w").startsWith("endpoint:"));
        assertTrue(refused("endpoint", "http://a:1,,http://b:2").startsWith("endpoint: an empty entry"));
        assertTrue(refused("endpoint", "http://a:1,ftp://b").startsWith("endpoint:"));
        assertTrue(refused("endpoint", "http://a:1, http://a:1").startsWith("endpoint: http://a:1 is listed twice"));
        assertTrue(refused("failover.cooldown.ms", -1).startsWith("failover.cooldown.ms:"));
        assertTrue(refused("catalog.cache.ms", 60_001).startsWith("catalog.cache.ms:"));
        assertTrue(refused("failover.statuses", "404").startsWith("failover.statuses: only 5xx"));
        assertTrue(refused("failover.statuses", "50x").startsWith("failover.statuses: not an HTTP status"));
        assertTrue(refused("region", "US EAST").startsWith("region:"));
        assertTrue(refused("path.style", "yes").startsWith("path.style:"));
        assertTrue(refused("service.access.key", "").startsWith("service.access.key is required"));
        assertTrue(refused("service.secret.key", null).startsWith("service.secret.key is required"));
        assertTrue(refused("tls.truststore", "/no/such/file.p12").startsWith("tls.truststore:"));
        assertTrue(refused("max.connections", 0).startsWith("max.connections:"));
        assertTrue(refused("max.connections", "many").startsWith("max.connections: not an integer"));
        assertTrue(refused("connect.timeout.ms", 0).startsWith("connect.timeout.ms:"));
        assertTrue(refused("read.timeout.ms", -1).startsWith("read.timeout.ms:"));
        assertTrue(refused("max.retries", 21).startsWith("max.retries:"));
        assertTrue(refused("multipart.threshold", 1024).startsWith("multipart.threshold:"));
        assertTrue(refused("multipart.part.size", 6L << 30).startsWith("multipart.part.size:"));
        assertTrue(refused("multipart.part.size", 128L << 20).startsWith("multipart.part.size (134217728) must not"));
        assertTrue(refused("bucket.prefix", "UP").startsWith("system.bucket / bucket.prefix:"));
        assertTrue(refused("system.bucket", "a_b").startsWith("system.bucket / bucket.prefix:"));
        assertTrue(refused("credentials", "").startsWith("credentials: at least one"));
        assertTrue(refused("credentials", "nocolon").contains("entry 1 is not ACCESSKEY:SECRET"));
        assertTrue(refused("credentials", "A:short").contains("access key must be"));
        String secretShort = refused("credentials", "ALICE:short");
        assertTrue(secretShort.contains("(ALICE): the secret must be") && !secretShort.contains("short,"));
        assertTrue(refused("credentials", "ALICE:secret-1234,ALICE:secret-5678").contains("appears twice"));
    }
}
