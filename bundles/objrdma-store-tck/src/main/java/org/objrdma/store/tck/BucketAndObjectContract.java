package org.objrdma.store.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.store.tck.StoreFixtures.checksum;
import static org.objrdma.store.tck.StoreFixtures.md5Hex;
import static org.objrdma.store.tck.StoreFixtures.randomBytes;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.objrdma.api.store.ByteRange;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.CommitVerifier;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.DeleteResult;
import org.objrdma.api.store.Digests;
import org.objrdma.api.store.ListRequest;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.api.store.UploadInfo;

/**
 * The contract for principals, buckets and single objects: ownership, names, puts from streams and
 * segments, metadata, checksums, ranged and streamed reads, refused bodies, the commit veto, delete, copy,
 * conditional reads.
 */
public abstract class BucketAndObjectContract extends StoreContractSupport {
    // ---- principals and buckets

    @Test
    void credentialsAndOwnership() throws Exception {
        assertEquals("alice-secret-1234", store.secretKey(ALICE).orElseThrow());
        assertTrue(store.secretKey("NOBODY").isEmpty());
        assertTrue(store.isAuthorized(ALICE, StoreAction.PUT_OBJECT, "bucket", "k"));
        assertTrue(store.isAuthorized(ALICE, StoreAction.LIST_OBJECTS, "bucket", null));
        assertFalse(store.isAuthorized(BOB, StoreAction.GET_OBJECT, "bucket", "k"));
        assertFalse(store.isAuthorized(BOB, StoreAction.DELETE_BUCKET, "bucket", null));
        assertFalse(store.isAuthorized("NOBODY", StoreAction.LIST_BUCKETS, null, null));
        assertTrue(store.isAuthorized(BOB, StoreAction.LIST_BUCKETS, null, null));
        assertTrue(store.isAuthorized(BOB, StoreAction.CREATE_BUCKET, "bucket", null));
        assertTrue(store.isAuthorized(BOB, StoreAction.HEAD_BUCKET, "no-such-bucket", null),
                "a missing bucket is reported as missing, not hidden behind AccessDenied");
    }

    @Test
    void bucketLifecycle() throws Exception {
        assertEquals(StoreError.BUCKET_ALREADY_OWNED_BY_YOU, error(() -> store.createBucket(ALICE, "bucket")));
        assertEquals(StoreError.BUCKET_ALREADY_EXISTS, error(() -> store.createBucket(BOB, "bucket")));
        store.createBucket(BOB, "bobs.bucket-2");
        assertEquals(List.of("bucket"), store.listBuckets(ALICE).stream().map(b -> b.name()).toList());
        assertEquals(BOB, store.headBucket("bobs.bucket-2").owner());
        assertEquals(StoreError.NO_SUCH_BUCKET, error(() -> store.headBucket("missing")));
        for (String bad : new String[] {"ab", "Upper", "a..b", "10.0.0.1", "-x-", "a_b", "x".repeat(64)}) {
            assertEquals(StoreError.INVALID_BUCKET_NAME, error(() -> store.createBucket(ALICE, bad)), bad);
        }
        put("k", new byte[] {1});
        assertEquals(StoreError.BUCKET_NOT_EMPTY, error(() -> store.deleteBucket("bucket")));
        UploadInfo upload = store.createMultipartUpload("bucket", "u", ObjectAttributes.NONE, null);
        store.delete("bucket", "k");
        assertEquals(StoreError.BUCKET_NOT_EMPTY, error(() -> store.deleteBucket("bucket")), "an upload in progress");
        store.abortMultipartUpload("bucket", "u", upload.uploadId());
        store.deleteBucket("bucket");
        assertEquals(StoreError.NO_SUCH_BUCKET, error(() -> store.headBucket("bucket")));
        assertEquals(StoreError.NO_SUCH_BUCKET, error(() -> store.deleteBucket("bucket")));
        assertEquals(StoreError.NO_SUCH_BUCKET, error(() -> put("k", new byte[1])));
        assertEquals(StoreError.NO_SUCH_BUCKET, error(() -> store.list("bucket", ListRequest.all())));
        assertEquals(StoreError.NO_SUCH_BUCKET, error(() -> store.open("bucket", "k", Conditions.NONE)));
        store.createBucket(BOB, "bucket");
        assertEquals(BOB, store.headBucket("bucket").owner(), "a deleted name is free again");
        assertTrue(store.list("bucket", ListRequest.all()).objects().isEmpty());
    }

    // ---- objects

    @Test
    void putAndReadBackEveryWay() throws Exception {
        byte[] data = randomBytes(1, 3 * MIB + 17);
        ObjectAttributes attrs = new ObjectAttributes("text/plain", "gzip", "attachment; filename=\"a b.txt\"", "de",
                "max-age=60", "Wed, 21 Oct 2026 07:28:00 GMT", Map.of("Color", "blue", "empty", "", "ünï", "çødé"));
        PutOptions options = PutOptions.DEFAULT.withAttributes(attrs).withChecksums(EnumSet.allOf(ChecksumAlgorithm.class));
        Instant before = Instant.now().minusSeconds(1);
        PutResult r = store.put("bucket", "dir/file.txt", new ByteArrayInputStream(data), data.length, options);
        assertEquals(md5Hex(data), r.etag());
        assertEquals(data.length, r.size());
        for (ChecksumAlgorithm a : ChecksumAlgorithm.values()) {
            assertEquals(checksum(a, data), r.checksums().get(a), a.name());
        }
        ObjectInfo head = store.head("bucket", "dir/file.txt", Conditions.NONE);
        assertEquals("dir/file.txt", head.key());
        assertEquals(data.length, head.size());
        assertEquals(r.etag(), head.etag());
        assertEquals(attrs, head.attributes());
        assertEquals(Map.of("color", "blue", "empty", "", "ünï", "çødé"), head.attributes().userMetadata());
        assertEquals(r.checksums(), head.checksums());
        assertEquals(0, head.partsCount());
        assertFalse(head.lastModified().isBefore(before));
        assertArrayEquals(data, get("bucket", "dir/file.txt"));

        try (Arena arena = Arena.ofConfined(); ObjectContent c = store.open("bucket", "dir/file.txt", Conditions.NONE)) {
            MemorySegment staging = arena.allocate(MIB, 4096);
            assertEquals(MIB, c.read(5, staging));
            assertArrayEquals(Arrays.copyOfRange(data, 5, 5 + MIB), staging.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(17, c.read(3L * MIB, staging), "short read at the end");
            assertArrayEquals(Arrays.copyOfRange(data, 3 * MIB, data.length),
                    staging.asSlice(0, 17).toArray(ValueLayout.JAVA_BYTE));
            assertEquals(StoreError.INVALID_RANGE, error(() -> c.read(data.length, staging)));
            try (InputStream in = c.stream(100, 1000)) {
                assertArrayEquals(Arrays.copyOfRange(data, 100, 1100), in.readAllBytes());
            }
            ByteRange suffix = ByteRange.resolve("bytes=-10", head.size()).orElseThrow();
            try (InputStream in = c.stream(suffix.offset(), suffix.length())) {
                assertArrayEquals(Arrays.copyOfRange(data, data.length - 10, data.length), in.readAllBytes());
            }
            assertEquals(StoreError.INVALID_RANGE, error(() -> c.stream(data.length - 5, 6)));
            assertEquals(StoreError.INVALID_RANGE, error(() -> c.stream(-1, 1)));
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(10);
            var read = store.read("bucket", "dir/file.txt", 1, seg);
            assertEquals(10, read.bytesRead());
            assertEquals(r.etag(), read.object().etag());
        }
    }

    @Test
    void putFromSegmentUnknownLengthAndEmpty() throws Exception {
        byte[] data = randomBytes(2, 2 * MIB + 3);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(data.length);
            seg.copyFrom(MemorySegment.ofArray(data));
            PutResult r = store.put("bucket", "seg", seg, PutOptions.DEFAULT.withChecksums(Set.of(ChecksumAlgorithm.CRC64NVME)));
            assertEquals(md5Hex(data), r.etag());
            assertEquals(checksum(ChecksumAlgorithm.CRC64NVME, data), r.checksums().get(ChecksumAlgorithm.CRC64NVME));
        }
        assertArrayEquals(data, get("bucket", "seg"));
        byte[] large = randomBytes(3, 9 * MIB + 1);
        try (Arena shared = Arena.ofShared()) {
            // a segment other threads may read (as staging buffers are), large enough for a store to split the work
            MemorySegment seg = shared.allocate(large.length, 4096);
            seg.copyFrom(MemorySegment.ofArray(large));
            PutResult r = store.put("bucket", "shared", seg, PutOptions.DEFAULT.withChecksums(Set.of(ChecksumAlgorithm.SHA256)));
            assertEquals(md5Hex(large), r.etag());
            assertEquals(checksum(ChecksumAlgorithm.SHA256, large), r.checksums().get(ChecksumAlgorithm.SHA256));
        }
        assertArrayEquals(large, get("bucket", "shared"));
        PutResult unknown = store.put("bucket", "unknown", new StoreFixtures.TrickleStream(data), -1, PutOptions.DEFAULT);
        assertEquals(data.length, unknown.size());
        assertArrayEquals(data, get("bucket", "unknown"));
        PutResult empty = put("empty", new byte[0]);
        assertEquals("d41d8cd98f00b204e9800998ecf8427e", empty.etag());
        assertEquals(0, store.head("bucket", "empty", Conditions.NONE).size());
        assertArrayEquals(new byte[0], get("bucket", "empty"));
        try (Arena arena = Arena.ofConfined(); ObjectContent c = store.open("bucket", "empty", Conditions.NONE)) {
            assertEquals(0, c.read(0, arena.allocate(16)));
            assertEquals(StoreError.INVALID_RANGE, error(() -> c.read(1, arena.allocate(16))));
        }
        assertEquals(ObjectAttributes.DEFAULT_CONTENT_TYPE, store.head("bucket", "empty", Conditions.NONE)
                .attributes().contentType());
    }

    @Test
    void overwriteDeleteAndMissing() throws Exception {
        put("k", new byte[] {1, 2, 3});
        put("k", new byte[] {4});
        assertArrayEquals(new byte[] {4}, get("bucket", "k"));
        assertEquals(StoreError.NO_SUCH_KEY, error(() -> store.open("bucket", "nope", Conditions.NONE)));
        assertEquals(StoreError.NO_SUCH_KEY, error(() -> store.head("bucket", "nope", Conditions.NONE)));
        assertEquals(StoreError.NO_SUCH_BUCKET, error(() -> store.open("nobucket", "k", Conditions.NONE)));
        store.delete("bucket", "k");
        store.delete("bucket", "k");
        assertEquals(StoreError.NO_SUCH_KEY, error(() -> store.head("bucket", "k", Conditions.NONE)));
        assertEquals(StoreError.NO_SUCH_BUCKET, error(() -> store.delete("nobucket", "k")));
    }

    @Test
    void keysThatLookLikePathsOrTheStoresOwnFiles() throws Exception {
        List<String> keys = new ArrayList<>(List.of("a/b/c", "/leading", "trailing/", "a//b", "..", "../../escape",
                "./x", "%2F%2e%2e", "100%", "sp ace", "tab\tnl\n", "ünïcødé/😀", "bucket.meta", "upload.meta",
                ".lock", "tmp", "objects", "uploads", "buckets", "00001.part", "CON", "a\\b", "x".repeat(1024),
                "é".repeat(512)));
        for (int i = 0; i < keys.size(); i++) {
            put(keys.get(i), new byte[] {(byte) i});
        }
        for (int i = 0; i < keys.size(); i++) {
            assertArrayEquals(new byte[] {(byte) i}, get("bucket", keys.get(i)), keys.get(i));
        }
        List<String> sorted = new ArrayList<>(keys);
        sorted.sort(ObjectStoreContractTest::utf8Compare);
        assertEquals(sorted, listAll(ListRequest.all()));
        assertEquals(StoreError.KEY_TOO_LONG, error(() -> put("x".repeat(1025), new byte[1])));
        assertEquals(StoreError.KEY_TOO_LONG, error(() -> put("é".repeat(513), new byte[1])));
        assertEquals(StoreError.INVALID_ARGUMENT, error(() -> put("", new byte[1])));
        assertEquals(StoreError.INVALID_ARGUMENT, error(() -> put("bad\uD800", new byte[1])));
        assertEquals(keys.size(), listAll(ListRequest.all()).size(), "refused keys left nothing");
    }

    @Test
    void badBodiesCommitNothing() throws Exception {
        put("k", new byte[] {7});
        byte[] data = randomBytes(3, 100_000);
        assertEquals(StoreError.INCOMPLETE_BODY, error(() -> store.put("bucket", "k",
                new ByteArrayInputStream(data, 0, 500), data.length, PutOptions.DEFAULT)));
        assertEquals(StoreError.INVALID_ARGUMENT, error(() -> store.put("bucket", "k",
                new ByteArrayInputStream(data), data.length - 1, PutOptions.DEFAULT)), "longer than declared");
        assertEquals(StoreError.ENTITY_TOO_LARGE, error(() -> store.put("bucket", "k",
                new ByteArrayInputStream(data), StoreLimits.MAX_OBJECT_SIZE + 1, PutOptions.DEFAULT)));
        assertEquals(StoreError.METADATA_TOO_LARGE, error(() -> store.put("bucket", "k", new ByteArrayInputStream(data),
                data.length, PutOptions.DEFAULT.withAttributes(new ObjectAttributes(null, null, null, null, null, null,
                        Map.of("big", "v".repeat(StoreLimits.MAX_USER_METADATA_BYTES)))))));
        IOException e = assertThrows(IOException.class, () -> store.put("bucket", "k",
                StoreFixtures.failingAfter(data, 70_000), data.length, PutOptions.DEFAULT));
        assertEquals("the client went away (planted)", e.getMessage(), "the body's exception comes out unchanged");
        assertThrows(IOException.class, () -> store.put("bucket", "fresh", StoreFixtures.failingAfter(data, 10), -1,
                PutOptions.DEFAULT));
        assertArrayEquals(new byte[] {7}, get("bucket", "k"));
        assertEquals(List.of("k"), listAll(ListRequest.all()));
    }

    @Test
    void theVerifierSeesTheDigestsAfterTheEndAndCanVeto() throws Exception {
        put("k", new byte[] {7});
        byte[] data = randomBytes(4, 300_000);
        StoreFixtures.TrickleStream body = new StoreFixtures.TrickleStream(data);
        AtomicReference<Digests> seen = new AtomicReference<>();
        AtomicBoolean endSeenFirst = new AtomicBoolean();
        CommitVerifier veto = d -> {
            seen.set(d);
            endSeenFirst.set(body.reachedEnd());
            throw new StoreException(StoreError.BAD_DIGEST, "planted mismatch");
        };
        PutOptions options = PutOptions.DEFAULT.withChecksums(Set.of(ChecksumAlgorithm.CRC32, ChecksumAlgorithm.SHA256))
                .withVerifier(veto);
        assertEquals(StoreError.BAD_DIGEST, error(() -> store.put("bucket", "k", body, data.length, options)));
        assertTrue(endSeenFirst.get(), "the verifier ran only after the body's end of stream");
        assertEquals(data.length, seen.get().length());
        assertEquals(md5Hex(data), seen.get().md5Hex());
        assertEquals(checksum(ChecksumAlgorithm.CRC32, data), seen.get().checksums().get(ChecksumAlgorithm.CRC32));
        assertEquals(checksum(ChecksumAlgorithm.SHA256, data), seen.get().checksums().get(ChecksumAlgorithm.SHA256));
        assertEquals(Base64Md5.of(data), seen.get().md5Base64());
        assertArrayEquals(new byte[] {7}, get("bucket", "k"), "the vetoed put left the old object");
        assertEquals(StoreError.CONTENT_SHA256_MISMATCH, error(() -> store.put("bucket", "new", new ByteArrayInputStream(data),
                -1, PutOptions.DEFAULT.withVerifier(d -> {
                    throw new StoreException(StoreError.CONTENT_SHA256_MISMATCH, "planted");
                }))));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(10);
            assertEquals(StoreError.BAD_DIGEST, error(() -> store.put("bucket", "new", seg, options)));
        }
        assertEquals(List.of("k"), listAll(ListRequest.all()));
    }

    private static final class Base64Md5 {
        static String of(byte[] data) {
            return java.util.Base64.getEncoder().encodeToString(HexFormat.of().parseHex(md5Hex(data)));
        }
    }

    @Test
    void deleteMany() throws Exception {
        put("a", new byte[1]);
        put("b", new byte[1]);
        List<DeleteResult> results = store.deleteMany("bucket", List.of("a", "missing", "x".repeat(1025), "b"));
        assertEquals(4, results.size());
        assertTrue(results.get(0).isDeleted());
        assertTrue(results.get(1).isDeleted(), "deleting a missing key succeeds");
        assertEquals(StoreError.KEY_TOO_LONG, results.get(2).error());
        assertEquals("b", results.get(3).key());
        assertTrue(listAll(ListRequest.all()).isEmpty());
        List<String> tooMany = new ArrayList<>();
        for (int i = 0; i <= StoreLimits.MAX_DELETE_KEYS; i++) {
            tooMany.add("k" + i);
        }
        assertEquals(StoreError.INVALID_ARGUMENT, error(() -> store.deleteMany("bucket", tooMany)));
        assertEquals(StoreError.NO_SUCH_BUCKET, error(() -> store.deleteMany("nobucket", List.of("a"))));
    }

    @Test
    void copy() throws Exception {
        byte[] data = randomBytes(5, 200_000);
        ObjectAttributes attrs = new ObjectAttributes("image/png", null, null, null, "no-cache", null, Map.of("a", "1"));
        PutResult src = store.put("bucket", "src", new ByteArrayInputStream(data), data.length,
                PutOptions.DEFAULT.withAttributes(attrs).withChecksums(Set.of(ChecksumAlgorithm.CRC32C)));
        store.createBucket(ALICE, "other");
        PutResult copied = store.copy("bucket", "src", Conditions.NONE, "other", "dst", null);
        assertEquals(src.etag(), copied.etag());
        assertArrayEquals(data, get("other", "dst"));
        ObjectInfo dst = store.head("other", "dst", Conditions.NONE);
        assertEquals(attrs, dst.attributes(), "COPY keeps the source's metadata");
        assertEquals(src.checksums(), dst.checksums());
        ObjectAttributes replaced = ObjectAttributes.ofContentType("text/plain");
        store.copy("bucket", "src", Conditions.ifMatch(src.etag()), "bucket", "src", replaced);
        assertEquals(replaced, store.head("bucket", "src", Conditions.NONE).attributes(), "REPLACE onto itself");
        assertArrayEquals(data, get("bucket", "src"));
        assertEquals(StoreError.INVALID_REQUEST, error(() -> store.copy("bucket", "src", Conditions.NONE, "bucket", "src", null)));
        assertEquals(StoreError.PRECONDITION_FAILED, error(() -> store.copy("bucket", "src", Conditions.ifMatch("nope"),
                "other", "x", null)));
        assertEquals(StoreError.PRECONDITION_FAILED, error(() -> store.copy("bucket", "src",
                Conditions.ifNoneMatch(src.etag()), "other", "x", null)), "copy-source If-None-Match fails with 412");
        assertEquals(StoreError.NO_SUCH_KEY, error(() -> store.copy("bucket", "none", Conditions.NONE, "other", "x", null)));
        assertEquals(StoreError.NO_SUCH_BUCKET, error(() -> store.copy("bucket", "src", Conditions.NONE, "nob", "x", null)));
        assertEquals(StoreError.NO_SUCH_KEY, error(() -> store.head("other", "x", Conditions.NONE)));
    }

    @Test
    void conditionalReads() throws Exception {
        PutResult r = put("k", new byte[] {1});
        Instant modified = store.head("bucket", "k", Conditions.NONE).lastModified();
        assertEquals(r.etag(), store.head("bucket", "k", Conditions.ifMatch("\"" + r.etag() + "\"")).etag());
        assertEquals(StoreError.PRECONDITION_FAILED, error(() -> store.open("bucket", "k", Conditions.ifMatch("\"x\""))));
        assertEquals(StoreError.NOT_MODIFIED, error(() -> store.open("bucket", "k", Conditions.ifNoneMatch(r.etag()))));
        assertEquals(StoreError.NOT_MODIFIED, error(() -> store.head("bucket", "k",
                new Conditions(null, null, modified.plusSeconds(5), null))));
        store.head("bucket", "k", new Conditions(null, null, modified.minusSeconds(5), null));
        assertEquals(StoreError.PRECONDITION_FAILED, error(() -> store.head("bucket", "k",
                new Conditions(null, null, null, modified.minusSeconds(5)))));
        assertEquals(StoreError.NO_SUCH_KEY, error(() -> store.open("bucket", "none", Conditions.ifMatch("*"))));
    }

}
