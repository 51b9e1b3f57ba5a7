package org.objrdma.store.fs.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ListRequest;
import org.objrdma.api.store.ListUploadsRequest;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/** What only the file store promises: it survives a restart, cleans up after crashes, and stays in its root. */
class FsStoreTest {
    private static final Map<String, String> USERS = Map.of("OWNER", "owner-secret");

    @TempDir
    Path dir;

    private EmbeddedStore open(Path root) throws IOException {
        return EmbeddedStores.filesystem(root, USERS, StoreLimits.MAX_OBJECT_SIZE, true);
    }

    private static byte[] read(EmbeddedStore store, String bucket, String key) throws Exception {
        try (ObjectContent c = store.open(bucket, key, Conditions.NONE); InputStream in = c.stream()) {
            return in.readAllBytes();
        }
    }

    private static List<Path> files(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).toList();
        }
    }

    @Test
    void everythingSurvivesARestart() throws Exception {
        Path root = dir.resolve("s");
        ObjectAttributes attrs = new ObjectAttributes("text/x", "br", "inline", "en", "no-store", "0", Map.of("a", "b"));
        String uploadId;
        PartInfo part;
        byte[] bigPart = new byte[(int) StoreLimits.MIN_PART_SIZE];
        try (EmbeddedStore s = open(root)) {
            s.createBucket("OWNER", "bk1");
            s.put("bk1", "x/y", new ByteArrayInputStream(new byte[] {1, 2}), 2,
                    PutOptions.DEFAULT.withAttributes(attrs).withChecksums(Set.of(ChecksumAlgorithm.SHA1)));
            uploadId = s.createMultipartUpload("bk1", "mp", attrs, ChecksumAlgorithm.CRC32).uploadId();
            part = s.uploadPart("bk1", "mp", uploadId, 1, new ByteArrayInputStream(bigPart), bigPart.length, PutOptions.DEFAULT);
        }
        try (EmbeddedStore s = open(root)) {
            assertEquals("OWNER", s.headBucket("bk1").owner());
            ObjectInfo info = s.head("bk1", "x/y", Conditions.NONE);
            assertEquals(attrs, info.attributes());
            assertEquals(Set.of(ChecksumAlgorithm.SHA1), info.checksums().keySet());
            assertArrayEquals(new byte[] {1, 2}, read(s, "bk1", "x/y"));
            assertEquals(List.of(uploadId), s.listMultipartUploads("bk1", ListUploadsRequest.all()).uploads().stream()
                    .map(u -> u.uploadId()).toList());
            assertEquals(part, s.listParts("bk1", "mp", uploadId, 0, 10).parts().getFirst());
            s.uploadPart("bk1", "mp", uploadId, 2, new ByteArrayInputStream(new byte[] {9}), 1, PutOptions.DEFAULT);
            PartInfo p2 = s.listParts("bk1", "mp", uploadId, 1, 10).parts().getFirst();
            s.completeMultipartUpload("bk1", "mp", uploadId,
                    List.of(new CompletedPart(1, part.etag()), new CompletedPart(2, p2.etag())));
        }
        try (EmbeddedStore s = open(root)) {
            assertEquals(bigPart.length + 1, s.head("bk1", "mp", Conditions.NONE).size());
            assertEquals(2, s.head("bk1", "mp", Conditions.NONE).partsCount());
            assertTrue(s.listMultipartUploads("bk1", ListUploadsRequest.all()).uploads().isEmpty());
            assertTrue(files(root.resolve("tmp")).isEmpty());
        }
    }

    @Test
    void startRemovesLeftoversAndIgnoresDamagedFiles() throws Exception {
        Path root = dir.resolve("s");
        try (EmbeddedStore s = open(root)) {
            s.createBucket("OWNER", "bk1");
            s.put("bk1", "good", new ByteArrayInputStream(new byte[] {5}), 1, PutOptions.DEFAULT);
        }
        Files.write(root.resolve("tmp/abc.put"), new byte[1000]);
        Files.createDirectories(root.resolve("tmp/def.bucket/objects"));
        Path damaged = root.resolve("buckets/bk1/objects").resolve(FsBackend.fileName("damaged"));
        Files.write(damaged, new byte[100]);
        Files.createDirectories(root.resolve("buckets/stray"));
        try (EmbeddedStore s = open(root)) {
            assertEquals(List.of("good"), s.list("bk1", ListRequest.all()).objects().stream().map(o -> o.key()).toList());
            assertEquals(StoreError.NO_SUCH_KEY, assertThrows(StoreException.class,
                    () -> s.open("bk1", "damaged", Conditions.NONE)).error());
            assertEquals(StoreError.NO_SUCH_BUCKET, assertThrows(StoreException.class, () -> s.headBucket("stray")).error());
            try (Stream<Path> t = Files.list(root.resolve("tmp"))) {
                assertEquals(0, t.count(), "leftovers of interrupted writes are gone");
            }
        }
    }

    @Test
    void keysNeverBecomePathsAndFailedWritesLeaveNoFiles() throws Exception {
        Path root = dir.resolve("s");
        try (EmbeddedStore s = open(root)) {
            s.createBucket("OWNER", "bk1");
            for (String key : List.of("../../../../escape", "/abs", "a/../../b", "bucket.meta", "..", "%2e%2e/x")) {
                s.put("bk1", key, new ByteArrayInputStream(new byte[] {1}), 1, PutOptions.DEFAULT);
            }
            assertThrows(IOException.class, () -> s.put("bk1", "broken", new InputStream() {
                @Override
                public int read() throws IOException {
                    throw new IOException("planted");
                }
            }, -1, PutOptions.DEFAULT));
            assertThrows(StoreException.class, () -> s.put("bk1", "vetoed", new ByteArrayInputStream(new byte[10]), 10,
                    PutOptions.DEFAULT.withVerifier(d -> {
                        throw new StoreException(StoreError.BAD_DIGEST, "planted");
                    })));
        }
        assertFalse(Files.exists(dir.resolve("escape")));
        for (Path f : files(root)) {
            Path rel = root.relativize(f);
            assertTrue(rel.toString().equals(".lock") || rel.toString().equals("buckets/bk1/bucket.meta")
                    || rel.toString().matches("buckets/bk1/objects/[0-9a-f]{64}"), rel.toString());
        }
        assertEquals(6 + 2, files(root).size(), "six objects, the bucket record and the lock; no temporary file");
    }

    @Test
    void oneStorePerRootAndASmallerMaximum() throws Exception {
        Path root = dir.resolve("s");
        try (EmbeddedStore s = EmbeddedStores.filesystem(root, USERS, 1000, false)) {
            IOException e = assertThrows(IOException.class, () -> open(root));
            assertTrue(e.getMessage().contains("another store"), e.getMessage());
            s.createBucket("OWNER", "bk1");
            assertEquals(StoreError.ENTITY_TOO_LARGE, assertThrows(StoreException.class, () -> s.put("bk1", "k",
                    new ByteArrayInputStream(new byte[1001]), -1, PutOptions.DEFAULT)).error());
            assertEquals(StoreError.ENTITY_TOO_LARGE, assertThrows(StoreException.class, () -> s.put("bk1", "k",
                    new ByteArrayInputStream(new byte[1001]), 1001, PutOptions.DEFAULT)).error());
            s.put("bk1", "k", new ByteArrayInputStream(new byte[1000]), -1, PutOptions.DEFAULT);
            try (Stream<Path> t = Files.list(root.resolve("tmp"))) {
                assertEquals(0, t.count());
            }
        }
        EmbeddedStore again = open(root);
        assertEquals(1000, again.head("bk1", "k", Conditions.NONE).size(), "the lock went with the closed store");
        again.close();
        again.close();
        assertEquals(StoreError.INTERNAL_ERROR, assertThrows(StoreException.class,
                () -> again.head("bk1", "k", Conditions.NONE)).error(), "a closed store refuses work");
        assertEquals(StoreError.INTERNAL_ERROR, assertThrows(StoreException.class,
                () -> again.createBucket("OWNER", "bk2")).error());
    }
}
