package org.objrdma.store.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.objrdma.store.tck.StoreFixtures.randomBytes;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.WriteCondition;

/**
 * S3's conditional writes ({@link WriteCondition}), for a store that declares
 * {@link org.objrdma.api.store.ObjectStore#supportsConditionalWrites()}: a failed condition is
 * PRECONDITION_FAILED and leaves the object as it was; the check is atomic with the commit, so of many
 * concurrent create-only writes exactly one lands.
 */
public abstract class ConditionalWriteContract extends MultipartContract {

    private PutResult putIf(String key, byte[] data, WriteCondition condition) throws Exception {
        return store.put("bucket", key, new ByteArrayInputStream(data), data.length,
                PutOptions.DEFAULT.withCondition(condition));
    }

    @Test
    void conditionalWritesCommitOnlyWhenTheConditionHolds() throws Exception {
        assumeTrue(store.supportsConditionalWrites(), "the store declares no conditional writes");
        byte[] a = randomBytes(41, 1000);
        byte[] b = randomBytes(42, 1000);
        PutResult created = putIf("cond", a, new WriteCondition(null, true));
        assertEquals(StoreError.PRECONDITION_FAILED, error(() -> putIf("cond", b, new WriteCondition(null, true))));
        assertEquals(StoreError.PRECONDITION_FAILED, error(() -> putIf("cond", b, new WriteCondition("0123", false))));
        assertEquals(StoreError.PRECONDITION_FAILED, error(() -> putIf("absent", b, new WriteCondition("*", false))),
                "If-Match needs a current object");
        assertArrayEquals(a, get("bucket", "cond"), "a failed condition stores nothing");
        PutResult replaced = putIf("cond", b, new WriteCondition("\"" + created.etag() + "\"", false));
        assertArrayEquals(b, get("bucket", "cond"));
        assertEquals(StoreError.PRECONDITION_FAILED, error(() -> putIf("cond", a, new WriteCondition(created.etag(), false))),
                "the ETag of the replaced version no longer matches");
        putIf("cond", a, new WriteCondition(replaced.etag(), false));
        assertArrayEquals(a, get("bucket", "cond"));
    }

    @Test
    void ofConcurrentCreateOnlyWritesExactlyOneLands() throws Exception {
        assumeTrue(store.supportsConditionalWrites(), "the store declares no conditional writes");
        int writers = 8;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<byte[]>> results = new ArrayList<>();
            for (int i = 0; i < writers; i++) {
                byte[] data = randomBytes(50 + i, 64 * 1024);
                results.add(pool.submit(() -> {
                    go.await();
                    try {
                        putIf("race", data, new WriteCondition(null, true));
                        return data;
                    } catch (StoreException e) {
                        assertEquals(StoreError.PRECONDITION_FAILED, e.error());
                        return null;
                    }
                }));
            }
            go.countDown();
            byte[] winner = null;
            int landed = 0;
            for (Future<byte[]> f : results) {
                byte[] r = f.get();
                if (r != null) {
                    landed++;
                    winner = r;
                }
            }
            assertEquals(1, landed, "exactly one create-only write lands");
            assertArrayEquals(winner, get("bucket", "race"));
        } finally {
            pool.shutdownNow();
        }
    }
}
