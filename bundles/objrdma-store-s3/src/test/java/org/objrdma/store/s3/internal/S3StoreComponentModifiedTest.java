package org.objrdma.store.s3.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.BundleContext;
import org.objrdma.testsupport.FakeBundleContext;

/**
 * A configuration change of PID org.objrdma.store.s3 against a real remote (s3proxy on loopback), with a
 * fake bundle context recording registrations: a bad value and an unreachable new endpoint change nothing
 * (the running adapter keeps serving), a valid change replaces the adapter.
 */
class S3StoreComponentModifiedTest {

    @TempDir
    Path dir;

    private final FakeBundleContext bundle = new FakeBundleContext();

    private BundleContext context() {
        return bundle.context;
    }

    @Test
    void badValuesAndAnUnreachableEndpointKeepTheAdapterAValidChangeReplacesIt() throws Exception {
        try (S3ProxyServer remote = new S3ProxyServer(dir)) {
            Map<String, Object> config = new HashMap<>(S3StoreContractTest.config(remote, "mod-",
                    Map.of("MODKEYID", "mod-secret-12345")));
            config.put("service.pid", S3StoreComponent.PID);
            S3StoreComponent component = new S3StoreComponent(context(), config);
            S3ObjectStore first = component.store();
            first.createBucket("MODKEYID", "kept");

            Map<String, Object> bad = new HashMap<>(config);
            bad.put("max.connections", "lots");
            component.modified(bad);
            assertSame(first, component.store());

            int closedPort;
            try (ServerSocket s = new ServerSocket(0)) {
                closedPort = s.getLocalPort();
            }
            Map<String, Object> unreachable = new HashMap<>(config);
            unreachable.put("endpoint", "http://127.0.0.1:" + closedPort);
            unreachable.put("max.retries", "0");
            unreachable.put("connect.timeout.ms", "500");
            component.modified(unreachable);
            assertSame(first, component.store());
            assertEquals(1, bundle.all().size());
            assertFalse(bundle.all().get(0).isUnregistered(), "the running adapter kept its registration");
            assertEquals("kept", first.listBuckets("MODKEYID").get(0).name());

            component.modified(new HashMap<>(config));
            assertSame(first, component.store(), "the same values restart nothing");

            Map<String, Object> more = new HashMap<>(config);
            more.put("max.connections", "8");
            component.modified(more);
            assertNotSame(first, component.store());
            assertEquals(2, bundle.all().size());
            assertTrue(bundle.all().get(0).isUnregistered());
            assertEquals("kept", component.store().listBuckets("MODKEYID").get(0).name());
            component.deactivate();
            assertTrue(bundle.all().get(1).isUnregistered());
        }
    }

    @Test
    void changedPropertiesNamesSecretsButNotWhatConfigAdminAdds() {
        assertEquals("max.connections, service.secret.key", S3StoreComponent.changedProperties(
                Map.of("max.connections", "64", "service.secret.key", "a", "service.pid", "x"),
                Map.of("max.connections", 8, "service.secret.key", "b", "component.id", 4L)));
    }
}
