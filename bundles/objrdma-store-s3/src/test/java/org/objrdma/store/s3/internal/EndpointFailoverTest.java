package org.objrdma.store.s3.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ListRequest;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;

/**
 * The adapter over several endpoints of one store: two s3proxy processes-in-JVM on one directory stand for two
 * RGWs of one cluster. One is stopped (its port then refuses): every call still succeeds on the other, the
 * preferred endpoint moves, and a store error (NoSuchKey) is the store's answer, not a reason to move.
 * {@code RgwFailoverTest} does the same with a killed RGW of a real Ceph.
 */
class EndpointFailoverTest {
    private static final Map<String, String> USERS = Map.of("ALICEKEY", "alice-secret-1234");
    @TempDir
    Path dir;

    private static byte[] random(int seed, int length) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    static byte[] get(S3ObjectStore store, String bucket, String key) throws Exception {
        try (ObjectContent c = store.open(bucket, key, Conditions.NONE); InputStream in = c.stream()) {
            return in.readAllBytes();
        }
    }

    private static Map<String, Object> config(String endpoints, S3ProxyServer any) {
        Map<String, Object> p = new HashMap<>(S3StoreContractTest.config(any, "f-", USERS));
        p.put("endpoint", endpoints);
        p.put("max.retries", 1);
        p.put("connect.timeout.ms", 2000);
        return p;
    }

    @Test
    void aStoppedEndpointIsLeftForTheNextOneAndNothingIsLost() throws Exception {
        S3ProxyServer first = new S3ProxyServer(dir);
        try (S3ProxyServer second = new S3ProxyServer(dir)) {
            S3ObjectStore store = S3ObjectStore.open(config(first.endpoint() + "," + second.endpoint(), first));
            try {
                store.createBucket("ALICEKEY", "bucket");
                byte[] before = random(1, 300_000);
                store.put("bucket", "before", new ByteArrayInputStream(before), before.length, PutOptions.DEFAULT);

                first.close(); // its port now refuses connections
                long t0 = System.nanoTime();
                assertArrayEquals(before, get(store, "bucket", "before"), "written before, read after the failover");
                byte[] after = random(2, 7 * 1024 * 1024);
                store.put("bucket", "after", new ByteArrayInputStream(after), after.length, PutOptions.DEFAULT);
                assertArrayEquals(after, get(store, "bucket", "after"));
                assertEquals(List.of("after", "before"), store.list("bucket", new ListRequest("", null, 100, null, null))
                        .objects().stream().map(o -> o.key()).toList());
                assertEquals(StoreError.NO_SUCH_KEY, assertThrows(StoreException.class,
                        () -> store.head("bucket", "missing", Conditions.NONE)).error(),
                        "an S3 error answer is the store's, returned as it is");
                assertTrue(System.nanoTime() - t0 < 20_000_000_000L, "the failover is bounded by the timeouts");

                // the preferred endpoint moved: the next calls go straight to the second one (no refused attempt)
                long t1 = System.nanoTime();
                for (int i = 0; i < 20; i++) {
                    store.head("bucket", "before", Conditions.NONE);
                }
                assertTrue(System.nanoTime() - t1 < 10_000_000_000L);
            } finally {
                store.close();
            }
        }
    }

    @Test
    void everyEndpointDownIsAClearInternalErrorNamingTheCause() throws Exception {
        int closedA;
        int closedB;
        try (ServerSocket a = new ServerSocket(0); ServerSocket b = new ServerSocket(0)) {
            closedA = a.getLocalPort();
            closedB = b.getLocalPort();
        }
        try (S3ProxyServer any = new S3ProxyServer(dir)) {
            StoreException e = assertThrows(StoreException.class, () -> S3ObjectStore.open(
                    config("http://127.0.0.1:" + closedA + ",http://127.0.0.1:" + closedB, any)));
            assertEquals(StoreError.INTERNAL_ERROR, e.error());
            assertTrue(e.getMessage().toLowerCase().contains("connect"), e.getMessage());
        }
    }
}
