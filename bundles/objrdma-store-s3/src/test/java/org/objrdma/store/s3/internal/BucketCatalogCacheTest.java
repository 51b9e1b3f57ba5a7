package org.objrdma.store.s3.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.api.store.BucketInfo;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The owner cache of {@link BucketCatalog} (issue 28: one system-bucket read per request cost the gateway in front
 * of RGW) and the consistency it keeps between gateways sharing one remote store (s3proxy here), on a test clock.
 */
class BucketCatalogCacheTest {
    private static final Map<String, String> USERS = Map.of("ALICEKEY", "alice-secret-1234", "BOBKEY", "bob-secret-12345");
    @TempDir
    static Path dir;
    private static S3ProxyServer remote;

    @BeforeAll
    static void start() throws Exception {
        remote = new S3ProxyServer(dir);
    }

    @AfterAll
    static void stop() throws Exception {
        remote.close();
    }

    @Test
    void aRecordFoundIsTrustedForTheCacheTimeAndWhatIsMissingNeverCached() throws Exception {
        Map<String, Object> p = S3StoreContractTest.config(remote, "cat1-", USERS);
        AtomicLong now = new AtomicLong();
        try (S3ObjectStore gatewayA = S3ObjectStore.open(p); S3Client s3 = RemoteClients.create(S3StoreSettings.from(p))) {
            BucketCatalog gatewayB = new BucketCatalog(s3, "cat1-system", 1000, now::get);
            assertTrue(gatewayB.cachedOwner("bkt1").isEmpty());
            gatewayA.createBucket("ALICEKEY", "bkt1");
            assertEquals("ALICEKEY", gatewayB.cachedOwner("bkt1").orElseThrow().owner(), "a miss is not cached");
            gatewayA.deleteBucket("bkt1");
            gatewayA.createBucket("BOBKEY", "bkt1");
            now.addAndGet(999_000_000L);
            assertEquals("ALICEKEY", gatewayB.cachedOwner("bkt1").orElseThrow().owner(),
                    "within the cache time: no read (the documented window)");
            assertEquals("BOBKEY", gatewayB.lookup("bkt1").orElseThrow().owner(), "lookup always reads");
            now.addAndGet(1_000_000_001L);
            assertEquals("BOBKEY", gatewayB.cachedOwner("bkt1").orElseThrow().owner());
            BucketCatalog uncached = new BucketCatalog(s3, "cat1-system", 0, now::get);
            assertEquals("BOBKEY", uncached.cachedOwner("bkt1").orElseThrow().owner());
            gatewayA.deleteBucket("bkt1");
            assertTrue(uncached.cachedOwner("bkt1").isEmpty(), "catalog.cache.ms = 0 reads every time");
        }
    }

    /** Another gateway deleted the bucket: the stale owner passes authorization here, the remote refuses the write. */
    @Test
    void aStaleOwnerReachesNothingOfADeletedBucket() throws Exception {
        Map<String, Object> p = S3StoreContractTest.config(remote, "cat2-", USERS);
        Map<String, Object> cached = new java.util.HashMap<>(p);
        cached.put("catalog.cache.ms", 60_000);
        try (S3ObjectStore gatewayA = S3ObjectStore.open(p); S3ObjectStore gatewayB = S3ObjectStore.open(cached)) {
            gatewayA.createBucket("ALICEKEY", "bkt2");
            assertTrue(gatewayB.isAuthorized("ALICEKEY", StoreAction.PUT_OBJECT, "bkt2", "k"));
            assertFalse(gatewayB.isAuthorized("BOBKEY", StoreAction.PUT_OBJECT, "bkt2", "k"));
            gatewayA.deleteBucket("bkt2");
            assertTrue(gatewayB.isAuthorized("ALICEKEY", StoreAction.PUT_OBJECT, "bkt2", "k"), "cached");
            StoreException e = assertThrows(StoreException.class, () -> gatewayB.put("bkt2", "k",
                    new ByteArrayInputStream(new byte[5]), 5, PutOptions.DEFAULT));
            assertEquals(StoreError.NO_SUCH_BUCKET, e.error());
            assertEquals(StoreError.NO_SUCH_BUCKET, assertThrows(StoreException.class,
                    () -> gatewayA.headBucket("bkt2")).error(), "nothing was made by the stale write");
            BucketInfo made = gatewayB.createBucket("BOBKEY", "bkt2");
            assertEquals("BOBKEY", made.owner(), "creation reads the record itself, never the cache");
            assertTrue(gatewayB.isAuthorized("BOBKEY", StoreAction.PUT_OBJECT, "bkt2", "k"), "this gateway's own record");
            assertFalse(gatewayB.isAuthorized("ALICEKEY", StoreAction.PUT_OBJECT, "bkt2", "k"));
        }
    }
}
