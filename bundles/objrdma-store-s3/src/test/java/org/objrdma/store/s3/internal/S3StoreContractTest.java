package org.objrdma.store.s3.internal;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.store.tck.ObjectStoreContractTest;

/**
 * The S3 adapter against the whole store contract suite, with gaul/s3proxy 4.1.0 (filesystem backend)
 * in this JVM as the remote service. The five cases s3proxy makes impossible through any S3 client are
 * skipped with their reason ({@link S3ProxyContractGaps}, proven by {@link S3ProxyLimitsTest}). Each test gets a fresh bucket prefix and system bucket, so the
 * stores of different tests never see each other's buckets on the one s3proxy.
 */
@org.junit.jupiter.api.extension.ExtendWith(S3ProxyContractGaps.class)
class S3StoreContractTest extends ObjectStoreContractTest {
    @TempDir
    static Path remoteRoot;
    private static S3ProxyServer remote;
    private static int generation;

    @BeforeAll
    static void startRemote() throws Exception {
        remote = new S3ProxyServer(remoteRoot);
    }

    @AfterAll
    static void stopRemote() throws Exception {
        remote.close();
    }

    static Map<String, Object> config(S3ProxyServer remote, String prefix, Map<String, String> users) {
        Map<String, Object> p = new HashMap<>();
        p.put("endpoint", remote.endpoint().toString());
        p.put("service.access.key", S3ProxyServer.SERVICE_KEY);
        p.put("service.secret.key", S3ProxyServer.SERVICE_SECRET);
        p.put("bucket.prefix", prefix);
        p.put("system.bucket", prefix + "system");
        p.put("credentials", users.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue())
                .collect(Collectors.joining(",")));
        return p;
    }

    @Override
    protected ObjectStore createStore(Map<String, String> credentials) throws Exception {
        return S3ObjectStore.open(config(remote, "t" + (++generation) + "-", credentials));
    }

    @Override
    protected void closeStore(ObjectStore store) {
        ((S3ObjectStore) store).close();
    }
}
