package org.objrdma.store.fs.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.UploadInfo;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * Fuzz target (Jazzer): client-chosen names — bucket, object key, upload id — through the file-system store, on a
 * real store root. The input is three lines (UTF-8): a bucket name, an object key, an upload id. Each input creates
 * that bucket, PUTs, reads back, lists, deletes that key in a fixed bucket and in the input's, and uploads a part to,
 * lists and aborts the input's upload id. Properties: only {@link StoreException} comes out; a key that was stored
 * reads back byte for byte; and nothing outside the store root is created, changed or removed — the root sits
 * beside a canary directory, and the whole tree around both is compared after every input.
 */
class StorePathsFuzzTest {
    private static final String BUCKET = "fuzz-bucket";
    private static Path base;
    private static Path root;
    private static Map<Path, String> outsideBefore;
    private static EmbeddedStore store;
    private static Arena arena;
    private static MemorySegment payload;

    @BeforeAll
    static void openStore() throws Exception {
        base = Files.createDirectories(Path.of("target", "jazzer", "store-paths").toAbsolutePath());
        deleteTree(base);
        root = Files.createDirectories(base.resolve("a/b/root"));
        // decoys where a traversal would land: beside the root, above it, above that
        for (Path p : new Path[] {base.resolve("a/b/outside"), base.resolve("a/outside"), base.resolve("outside")}) {
            Files.createDirectories(p);
            Files.writeString(p.resolve("canary"), "canary " + p);
        }
        Files.createDirectories(base.resolve("a/b/buckets"));
        Files.writeString(base.resolve("a/b/buckets/canary"), "a sibling named like the store's own directory");
        outsideBefore = snapshotOutsideRoot();
        store = EmbeddedStores.filesystem(root, Map.of("AKFUZZ", "secret-fuzz"), 1 << 20, false);
        store.createBucket("AKFUZZ", BUCKET);
        arena = Arena.ofShared();
        payload = arena.allocate(32);
        payload.copyFrom(MemorySegment.ofArray("the bytes a fuzzed key holds....".getBytes(StandardCharsets.US_ASCII)));
    }

    @AfterAll
    static void closeStore() throws Exception {
        if (store != null) {
            store.close();
        }
        if (arena != null) {
            arena.close();
        }
    }

    @FuzzTest
    @DictionaryEntries({"..", "../", "/", ".", "%2e%2e%2f", "buckets", "tmp", ".lock",
            "uploads", "objects"})
    void namesStayUnderTheRoot(byte[] input) throws Exception {
        String[] lines = new String(input, StandardCharsets.UTF_8).split("\n", -1);
        String bucket = lines[0];
        String key = lines.length > 1 ? lines[1] : "";
        String uploadId = lines.length > 2 ? lines[2] : "";

        refusedOrDone(() -> store.createBucket("AKFUZZ", bucket));
        for (String b : new String[] {BUCKET, bucket}) {
            refusedOrDone(() -> {
                store.put(b, key, payload, PutOptions.DEFAULT);
                MemorySegment back = arena.allocate(payload.byteSize());
                assertEquals(payload.byteSize(), store.read(b, key, 0, back).bytesRead(), "bytes read back");
                assertArrayEquals(payload.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                        back.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), "the key reads back what was put");
                assertNotNull(store.head(b, key, Conditions.NONE));
                store.delete(b, key);
            });
            refusedOrDone(() -> store.uploadPart(b, key, uploadId, 1, payload, PutOptions.DEFAULT));
            refusedOrDone(() -> store.listParts(b, key, uploadId, 0, 10));
            refusedOrDone(() -> store.abortMultipartUpload(b, key, uploadId));
        }
        refusedOrDone(() -> {
            UploadInfo u = store.createMultipartUpload(BUCKET, key, ObjectAttributes.NONE, null);
            store.abortMultipartUpload(BUCKET, key, u.uploadId());
        });
        refusedOrDone(() -> store.deleteBucket(bucket));

        assertEquals(outsideBefore, snapshotOutsideRoot(), "files outside the store root changed");
    }

    private interface StoreCall {
        void run() throws StoreException;
    }

    /** A refusal must be a StoreException with its error; anything else escapes and is a finding. */
    private static void refusedOrDone(StoreCall call) {
        try {
            call.run();
        } catch (StoreException e) {
            assertNotNull(e.error(), "a StoreException without its error");
        }
    }

    /** Every path under {@link #base} that is not under {@link #root}, with the file contents. */
    private static Map<Path, String> snapshotOutsideRoot() throws IOException {
        Map<Path, String> out = new TreeMap<>();
        try (Stream<Path> all = Files.walk(base)) {
            all.filter(p -> !p.startsWith(root)).forEach(p -> {
                try {
                    out.put(base.relativize(p), Files.isDirectory(p) ? "<dir>" : Files.readString(p));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        return out;
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> all = Files.walk(p)) {
            for (Path q : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                if (!q.equals(p)) {
                    Files.delete(q);
                }
            }
        }
    }
}
