package org.objrdma.store.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.objrdma.store.tck.StoreFixtures.md5Hex;
import static org.objrdma.store.tck.StoreFixtures.randomBytes;

import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ListRequest;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.PutResult;

/**
 * The behaviour every {@link ObjectStore} must show, as S3 defines it. A store module extends this class
 * in its tests and says how to make a fresh, empty store that knows the suite's two users; every test
 * then runs against the real implementation. The tests are grouped by concept up the superclass chain
 * ({@link BucketAndObjectContract}, {@link ListingContract}, {@link MultipartContract},
 * {@link ConditionalWriteContract},
 * {@link PartNumberContract}); this class adds
 * the concurrency contract: one writer of a contended key wins whole, readers never see a mix.
 */
public abstract class ObjectStoreContractTest extends PartNumberContract {

    @Test
    void sixteenWritersOfOneKeyOneWinsWhole() throws Exception {
        int writers = 16;
        int size = MIB;
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<PutResult>> results = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                byte[] data = new byte[size];
                Arrays.fill(data, (byte) w);
                results.add(pool.submit(() -> {
                    start.await();
                    return put("contended", data);
                }));
            }
            start.countDown();
            List<String> etags = new ArrayList<>();
            for (Future<PutResult> f : results) {
                etags.add(f.get(60, TimeUnit.SECONDS).etag());
            }
            byte[] got = get("bucket", "contended");
            assertEquals(size, got.length);
            byte first = got[0];
            for (byte b : got) {
                if (b != first) {
                    fail("the object mixes the bytes of two writers");
                }
            }
            ObjectInfo head = store.head("bucket", "contended", Conditions.NONE);
            assertEquals(md5Hex(got), head.etag(), "the record belongs to the bytes that won");
            assertTrue(etags.contains(head.etag()));
            assertEquals(List.of("contended"), listAll(ListRequest.all()));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void readersSeeTheOldOrTheNewObjectNeverAMix() throws Exception {
        int size = 2 * MIB;
        byte[][] versions = new byte[4][size];
        for (int v = 0; v < versions.length; v++) {
            Arrays.fill(versions[v], (byte) (v + 1));
        }
        put("k", versions[0]);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; !stop.get() && i < 200; i++) {
                    put("k", versions[i % versions.length]);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        writer.start();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment staging = arena.allocate(size);
            for (int r = 0; r < 40; r++) {
                try (ObjectContent c = store.open("bucket", "k", Conditions.NONE)) {
                    byte[] streamed;
                    try (InputStream in = c.stream()) {
                        streamed = in.readAllBytes();
                    }
                    assertEquals(size, c.read(0, staging));
                    byte[] segmentBytes = staging.toArray(ValueLayout.JAVA_BYTE);
                    assertUniform(streamed);
                    assertArrayEquals(streamed, segmentBytes, "two reads through one handle see one version");
                    assertEquals(md5Hex(streamed), c.info().etag(), "the record matches the bytes read");
                }
            }
        } finally {
            stop.set(true);
            writer.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("writer failed", failure.get());
        }
    }

    @Test
    void anOpenHandleKeepsItsVersionThroughOverwriteAndDelete() throws Exception {
        byte[] old = randomBytes(31, 100_000);
        put("k", old);
        try (ObjectContent c = store.open("bucket", "k", Conditions.NONE)) {
            put("k", randomBytes(32, 50));
            try (InputStream in = c.stream()) {
                assertArrayEquals(old, in.readAllBytes());
            }
            store.delete("bucket", "k");
            try (InputStream in = c.stream(10, 10)) {
                assertArrayEquals(Arrays.copyOfRange(old, 10, 20), in.readAllBytes());
            }
        }
    }

    private static void assertUniform(byte[] data) {
        for (byte b : data) {
            if (b != data[0]) {
                fail("a read mixed two versions of the object");
            }
        }
    }
}
