package org.objrdma.store.fs.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.PartRange;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * The part layout in the file store's object record: it survives a restart, a record written before
 * layouts were kept reads as one part, and a layout that does not add up makes the file ignored.
 */
class FsPartLayoutTest {
    private static final Map<String, String> USERS = Map.of("OWNER", "owner-secret");
    private static final int MIB = 1024 * 1024;

    @TempDir
    Path root;

    private EmbeddedStore open() throws IOException {
        return EmbeddedStores.filesystem(root, USERS, StoreLimits.MAX_OBJECT_SIZE, true);
    }

    private static byte[] bytes(long seed, int n) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static void putMultipart(EmbeddedStore store, String key, byte[]... parts) throws Exception {
        String id = store.createMultipartUpload("bkt", key, ObjectAttributes.NONE, null).uploadId();
        List<CompletedPart> done = new ArrayList<>();
        for (int i = 0; i < parts.length; i++) {
            PartInfo p = store.uploadPart("bkt", key, id, i + 1, new ByteArrayInputStream(parts[i]), parts[i].length,
                    PutOptions.DEFAULT);
            done.add(new CompletedPart(i + 1, p.etag()));
        }
        store.completeMultipartUpload("bkt", key, id, done);
    }

    private Path objectFile(String key) throws Exception {
        byte[] sha = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        return root.resolve("buckets/bkt/objects").resolve(HexFormat.of().formatHex(sha));
    }

    /** Replaces the record at the end of an object file (bytes kept), as another writer version would have. */
    private static void rewriteRecord(Path file, byte[] record) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long data = RecordFrame.read(ch).dataLength();
            ch.truncate(data);
            ch.position(data);
            RecordFrame.append(ch, record);
        }
    }

    private static byte[] partBytes(ObjectContent c, PartRange r) throws Exception {
        try (InputStream in = c.stream(r.offset(), r.length())) {
            return in.readAllBytes();
        }
    }

    @Test
    void thePartLayoutSurvivesARestart() throws Exception {
        byte[][] parts = {bytes(1, 5 * MIB), bytes(2, 5 * MIB + 3), bytes(3, 5 * MIB + 3), bytes(4, 10)};
        try (EmbeddedStore store = open()) {
            store.createBucket("OWNER", "bkt");
            putMultipart(store, "k", parts);
        }
        try (EmbeddedStore store = open(); ObjectContent c = store.open("bkt", "k", Conditions.NONE)) {
            long offset = 0;
            for (int n = 1; n <= parts.length; n++) {
                assertEquals(new PartRange(n, 4, offset, parts[n - 1].length), c.part(n));
                assertArrayEquals(parts[n - 1], partBytes(c, c.part(n)));
                offset += parts[n - 1].length;
            }
            assertEquals(StoreError.INVALID_PART_NUMBER, assertThrows(StoreException.class, () -> c.part(5)).error());
        }
    }

    @Test
    void aRecordWithoutALayoutReadsAsOnePart() throws Exception {
        byte[][] parts = {bytes(5, 5 * MIB), bytes(6, 777)};
        try (EmbeddedStore store = open()) {
            store.createBucket("OWNER", "bkt");
            putMultipart(store, "old", parts);
        }
        Path file = objectFile("old");
        RecordCodec.StoredObject stored;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            stored = RecordCodec.object(RecordFrame.read(ch).record());
        }
        assertEquals(2, stored.parts().partsCount());
        // the record as the store wrote it before part layouts (and then ACLs) were kept: the same fields, no
        // layout and no ACL (a length-prefixed name) after them
        byte[] current = RecordCodec.object(stored.info(), stored.parts());
        ByteArrayOutputStream layout = new ByteArrayOutputStream();
        stored.parts().write(new DataOutputStream(layout));
        int aclField = Integer.BYTES + stored.info().attributes().acl().s3Name().length();
        rewriteRecord(file, Arrays.copyOf(current, current.length - layout.size() - aclField));

        try (EmbeddedStore store = open(); ObjectContent c = store.open("bkt", "old", Conditions.NONE)) {
            assertEquals(2, c.info().partsCount(), "the recorded parts count (and the -2 ETag) stay as written");
            assertEquals(org.objrdma.api.store.CannedAcl.PRIVATE, c.info().attributes().acl(),
                    "a record from before ACLs is private");
            PartRange whole = c.part(1);
            assertEquals(PartRange.whole(5 * MIB + 777), whole);
            byte[] all = partBytes(c, whole);
            assertArrayEquals(parts[0], Arrays.copyOf(all, 5 * MIB));
            assertEquals(StoreError.INVALID_PART_NUMBER, assertThrows(StoreException.class, () -> c.part(2)).error());
        }
    }

    @Test
    void aLayoutThatDoesNotAddUpMakesTheFileIgnored() throws Exception {
        byte[][] parts = {bytes(7, 5 * MIB), bytes(8, 100)};
        try (EmbeddedStore store = open()) {
            store.createBucket("OWNER", "bkt");
            putMultipart(store, "bad", parts);
            putMultipart(store, "good", parts);
        }
        Path file = objectFile("bad");
        RecordCodec.StoredObject stored;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            stored = RecordCodec.object(RecordFrame.read(ch).record());
        }
        PartInfo p1 = new PartInfo(1, "e", 5 * MIB, stored.info().lastModified(), Map.of());
        PartInfo p2 = new PartInfo(2, "e", 101, stored.info().lastModified(), Map.of());
        byte[] wrong = RecordCodec.object(stored.info(), PartLayout.of(List.of(p1, p2)));
        IOException e = assertThrows(IOException.class, () -> RecordCodec.object(wrong));
        assertEquals("part layout of 2 parts, " + (5 * MIB + 101) + " bytes does not match the record's 2 parts, "
                + (5 * MIB + 100) + " bytes", e.getMessage());
        rewriteRecord(file, wrong);
        try (EmbeddedStore store = open()) {
            assertEquals(StoreError.NO_SUCH_KEY,
                    assertThrows(StoreException.class, () -> store.head("bkt", "bad", Conditions.NONE)).error());
            assertEquals(2, store.head("bkt", "good", Conditions.NONE).partsCount());
        }
    }
}
