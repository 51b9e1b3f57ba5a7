package org.objrdma.s3.internal.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.reflect.Proxy;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.s3.S3Gateway;
import org.objrdma.testsupport.Configs;

/** A configuration change of PID org.objrdma.s3: a good one applies to the next request, a bad one changes nothing. */
class S3ServletModifiedTest {

    /** The metatype defaults, but for {@code overrides} (method name → value). */
    static S3GatewayConfig config(Map<String, Object> overrides) {
        return Configs.of(S3GatewayConfig.class, overrides);
    }

    /** A fake store: the gateway only asks its name until a request comes. */
    private static ObjectStore fakeStore() {
        return (ObjectStore) Proxy.newProxyInstance(ObjectStore.class.getClassLoader(), new Class<?>[] {ObjectStore.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "name" -> "fake";
                    case "toString" -> "fake store";
                    case "hashCode" -> 1;
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static S3Servlet active() {
        S3Servlet servlet = new S3Servlet();
        servlet.store = fakeStore();
        servlet.activate(config(Map.of("max_put_bytes", 1000L)));
        return servlet;
    }

    @Test
    void aGoodChangeAppliesLiveToTheNextRequest() {
        S3Servlet servlet = active();
        S3Gateway before = servlet.gateway();
        servlet.modified(config(Map.of("max_put_bytes", 2000L, "max_xml_body_bytes", 2048)));
        assertNotSame(before, servlet.gateway());
        assertEquals(2000L, servlet.gateway().settings().maxPutBytes());
        assertEquals(2048, servlet.gateway().settings().maxXmlBodyBytes());
        assertEquals(1000L, before.settings().maxPutBytes(), "a request in flight keeps the gateway it started on");
    }

    @Test
    void sigV2IsOnByDefaultAndCanBeTurnedOffLive() {
        S3Servlet servlet = active();
        assertEquals(true, servlet.gateway().settings().acceptSigV2());
        servlet.modified(config(Map.of("max_put_bytes", 1000L, "sigv2_enabled", false)));
        assertEquals(false, servlet.gateway().settings().acceptSigV2());
    }

    @Test
    void aBadValueIsRefusedAndTheGatewayKeepsItsSettings() {
        S3Servlet servlet = active();
        S3Gateway before = servlet.gateway();
        for (Map<String, Object> bad : java.util.List.<Map<String, Object>>of(Map.of("max_put_bytes", -5L),
                Map.of("max_xml_body_bytes", 10), Map.of("max_clock_skew", 0L), Map.of("region", "US East"),
                Map.of("rdma_foreign_sessions", "sometimes"), Map.of("max_put_bytes", 3000L, "rdma_chunk_bytes", 0L))) {
            servlet.modified(config(bad));
            assertSame(before, servlet.gateway(), bad.toString());
            assertEquals(1000L, servlet.gateway().settings().maxPutBytes());
        }
    }
}
