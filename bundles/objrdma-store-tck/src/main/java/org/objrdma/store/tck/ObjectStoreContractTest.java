package org.objrdma.store.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.store.ByteRange;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.CommitVerifier;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.DeleteResult;
import org.objrdma.api.store.Digests;
import org.objrdma.api.store.ListPage;
import org.objrdma.api.store.ListRequest;
import org.objrdma.api.store.ListUploadsRequest;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.store.ObjectSummary;
import org.objrdma.api.store.PartInfo;
import org.objrdma.api.store.PartsPage;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.StoreAction;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.api.store.UploadInfo;
import org.objrdma.api.store.UploadsPage;

/**
 * The behaviour every {@link ObjectStore} must show, as S3 defines it. A store module extends this class
 * in its tests and says how to make a fresh, empty store that knows the suite's two users; every test
 * then runs against the real implementation.
 */
public abstract class ObjectStoreContractTest {
    /** The suite's users: access key id → secret. */
    protected static final String ALICE = "ALICEACCESSKEY";
    protected static final String BOB = "BOBACCESSKEY";
    protected static final Map<String, String> USERS = Map.of(ALICE, "alice-secret-1234", BOB, "bob-secret-5678");
    private static final int MIB = 1024 * 1024;

    protected ObjectStore store;
    private final List<AutoCloseable> toClose = new ArrayList<>();

    /** A fresh, empty store knowing {@code credentials}. */
    protected abstract ObjectStore createStore(Map<String, String> credentials) throws Exception;

    /** Releases a store made by {@link #createStore}. */
    protected abstract void closeStore(ObjectStore store) throws Exception;

    @BeforeEach
    void openStore() throws Exception {
        store = createStore(USERS);
        store.createBucket(ALICE, "bucket");
    }

    @AfterEach
    void releaseStore() throws Exception {
        for (AutoCloseable c : toClose) {
            c.close();
        }
        closeStore(store);
    }

    // ---- helpers

    protected static StoreError error(Executable call) {
        try {
            call.run();
        } catch (StoreException e) {
            return e.error();
        } catch (Exception e) {
            fail("expected a StoreException, got " + e);
        }
        return fail("expected a StoreException, the call succeeded");
    }

    /** A call that may throw anything. */
    @FunctionalInterface
    protected interface Executable {
        void run() throws Exception;
    }

    protected PutResult put(String key, byte[] data) throws Exception {
        return store.put("bucket", key, new ByteArrayInputStream(data), data.length, PutOptions.DEFAULT);
    }

    protected byte[] get(String bucket, String key) throws Exception {
        try (ObjectContent c = store.open(bucket, key, Conditions.NONE); InputStream in = c.stream()) {
            return in.readAllBytes();
        }
    }

    private List<String> keys(ListPage page) {
        return page.objects().stream().map(ObjectSummary::key).toList();
    }

    private List<String> listAll(ListRequest request) throws StoreException {
        List<String> out = new ArrayList<>();
        ListPage page = store.list("bucket", request);
        while (true) {
            out.addAll(keys(page));
            out.addAll(page.commonPrefixes());
            if (!page.truncated()) {
                return out;
            }
            page = store.list("bucket", request.withContinuationToken(page.nextContinuationToken()));
        }
    }

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

    static int utf8Compare(String a, String b) {
        return Arrays.compareUnsigned(a.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                b.getBytes(java.nio.charset.StandardCharsets.UTF_8));
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

    // ---- listing

    @Test
    void listingWithPrefixDelimiterAndPages() throws Exception {
        for (String k : List.of("a", "a/", "a/b", "a/b/c", "a/c", "ab", "b/x", "b/y/z", "c")) {
            put(k, new byte[] {1});
        }
        assertEquals(List.of("a", "a/", "a/b", "a/b/c", "a/c", "ab", "b/x", "b/y/z", "c"), listAll(ListRequest.all()));
        ListPage top = store.list("bucket", new ListRequest("", "/", 1000, null, null));
        assertEquals(List.of("a", "ab", "c"), keys(top));
        assertEquals(List.of("a/", "b/"), top.commonPrefixes());
        assertEquals(5, top.keyCount());
        ListPage underA = store.list("bucket", new ListRequest("a/", "/", 1000, null, null));
        assertEquals(List.of("a/", "a/b", "a/c"), keys(underA), "a key equal to the prefix and ending in the delimiter is listed");
        assertEquals(List.of("a/b/"), underA.commonPrefixes());
        assertEquals(List.of("a/b", "a/b/c"), keys(store.list("bucket", new ListRequest("a/b", "", 1000, null, null))));
        assertTrue(store.list("bucket", new ListRequest("zzz", "/", 1000, null, null)).objects().isEmpty());
        assertEquals(List.of("ab", "b/x", "b/y/z", "c"), keys(store.list("bucket", new ListRequest("", "", 1000, null, "a/c"))));
        assertEquals(List.of("b/y/"), store.list("bucket", new ListRequest("b/", "/", 1000, null, "b/x")).commonPrefixes());
        // paging: each page holds at most maxKeys entries, counting common prefixes, and never repeats one
        for (int max = 1; max <= 6; max++) {
            List<String> all = new ArrayList<>();
            ListRequest request = new ListRequest("", "/", max, null, null);
            ListPage page = store.list("bucket", request);
            while (true) {
                assertTrue(page.keyCount() <= max);
                all.addAll(keys(page));
                all.addAll(page.commonPrefixes());
                if (!page.truncated()) {
                    break;
                }
                page = store.list("bucket", request.withContinuationToken(page.nextContinuationToken()));
            }
            all.sort(ObjectStoreContractTest::utf8Compare);
            assertEquals(List.of("a", "a/", "ab", "b/", "c"), all, "max keys " + max);
        }
        ListPage zero = store.list("bucket", new ListRequest("", "", 0, null, null));
        assertEquals(0, zero.keyCount());
        assertEquals(List.of("a/b", "a/b/c", "a/c"), listAll(new ListRequest("a/", "", 2, null, "a/")));
        // a multi-character delimiter
        assertEquals(List.of("a/b/"), store.list("bucket", new ListRequest("a", "b/", 1000, null, null)).commonPrefixes());
        assertEquals(StoreError.INVALID_ARGUMENT, error(() -> store.list("bucket",
                new ListRequest("", "", 10, "bm90LWEtdG9rZW4", null))));
        assertEquals(StoreError.INVALID_ARGUMENT, error(() -> store.list("bucket", new ListRequest("", "", 10, "!!", null))));
        ListPage one = store.list("bucket", new ListRequest("", "", 2, null, null));
        assertTrue(one.truncated());
        assertEquals(List.of("a", "a/"), keys(one));
        assertEquals(1, store.list("bucket", ListRequest.all()).objects().stream().filter(o -> o.key().equals("c"))
                .mapToLong(ObjectSummary::size).sum());
    }

    @Test
    void listingIsInUtf8ByteOrderNotUtf16Order() throws Exception {
        // U+FFFD sorts after U+1F600 in UTF-16 (0xFFFD > 0xD83D) but before it in UTF-8 (EF.. < F0..)
        List<String> keys = List.of("\uFFFD", "\uD83D\uDE00", "z", "\u00E9", "\uE000", "A");
        for (String k : keys) {
            put(k, new byte[1]);
        }
        List<String> expected = List.of("A", "z", "\u00E9", "\uE000", "\uFFFD", "\uD83D\uDE00");
        assertEquals(expected, listAll(ListRequest.all()));
        assertEquals(expected, listAll(new ListRequest("", "", 1, null, null)), "continuation keeps the byte order");
        assertEquals(List.of("\uD83D\uDE00"), listAll(new ListRequest("", "", 1000, null, "\uFFFD")));
    }

    // ---- multipart

    @Test
    void multipartUploadCompletesWithS3sETagAndChecksum() throws Exception {
        byte[] p1 = randomBytes(11, 5 * MIB);
        byte[] p2 = randomBytes(12, 5 * MIB + 1);
        byte[] p3 = randomBytes(13, 1234);
        ObjectAttributes attrs = new ObjectAttributes("video/mp4", null, null, null, null, null, Map.of("m", "v"));
        UploadInfo upload = store.createMultipartUpload("bucket", "big", attrs, ChecksumAlgorithm.CRC32C);
        assertEquals(ChecksumAlgorithm.CRC32C, upload.checksumAlgorithm());
        String id = upload.uploadId();
        PartInfo i1 = store.uploadPart("bucket", "big", id, 1, new ByteArrayInputStream(p1), p1.length, PutOptions.DEFAULT);
        assertEquals(md5Hex(p1), i1.etag());
        assertEquals(checksum(ChecksumAlgorithm.CRC32C, p1), i1.checksums().get(ChecksumAlgorithm.CRC32C));
        PartInfo i2;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(p2.length);
            seg.copyFrom(MemorySegment.ofArray(p2));
            i2 = store.uploadPart("bucket", "big", id, 2, seg, PutOptions.DEFAULT);
        }
        store.uploadPart("bucket", "big", id, 3, new ByteArrayInputStream(new byte[10]), 10, PutOptions.DEFAULT);
        PartInfo i3 = store.uploadPart("bucket", "big", id, 3, new ByteArrayInputStream(p3), -1, PutOptions.DEFAULT);
        assertEquals(md5Hex(p3), i3.etag(), "a part uploaded again replaces the earlier one");
        store.uploadPart("bucket", "big", id, 9, new ByteArrayInputStream(new byte[5]), 5, PutOptions.DEFAULT);

        PartsPage parts = store.listParts("bucket", "big", id, 0, 2);
        assertEquals(List.of(1, 2), parts.parts().stream().map(PartInfo::partNumber).toList());
        assertTrue(parts.truncated());
        assertEquals(2, parts.nextPartNumberMarker());
        PartsPage rest = store.listParts("bucket", "big", id, 2, 1000);
        assertEquals(List.of(3, 9), rest.parts().stream().map(PartInfo::partNumber).toList());
        assertFalse(rest.truncated());
        assertEquals(p3.length, rest.parts().getFirst().size());
        assertEquals(StoreError.NO_SUCH_KEY, error(() -> store.head("bucket", "big", Conditions.NONE)),
                "parts are not visible before completion");

        PutResult done = store.completeMultipartUpload("bucket", "big", id, List.of(new CompletedPart(1, "\"" + i1.etag() + "\""),
                new CompletedPart(2, i2.etag(), i2.checksums()), new CompletedPart(3, i3.etag())));
        String expectedETag = md5Hex(HexFormat.of().parseHex(md5Hex(p1)), HexFormat.of().parseHex(md5Hex(p2)),
                HexFormat.of().parseHex(md5Hex(p3))) + "-3";
        assertEquals(expectedETag, done.etag());
        assertEquals(ChecksumAlgorithm.CRC32C.composite(List.of(checksum(ChecksumAlgorithm.CRC32C, p1),
                checksum(ChecksumAlgorithm.CRC32C, p2), checksum(ChecksumAlgorithm.CRC32C, p3))),
                done.checksums().get(ChecksumAlgorithm.CRC32C));
        assertTrue(done.checksums().get(ChecksumAlgorithm.CRC32C).endsWith("-3"));
        ObjectInfo head = store.head("bucket", "big", Conditions.NONE);
        assertEquals(3, head.partsCount());
        assertEquals(attrs, head.attributes());
        assertEquals((long) p1.length + p2.length + p3.length, head.size());
        byte[] whole = get("bucket", "big");
        assertArrayEquals(p1, Arrays.copyOfRange(whole, 0, p1.length));
        assertArrayEquals(p2, Arrays.copyOfRange(whole, p1.length, p1.length + p2.length));
        assertArrayEquals(p3, Arrays.copyOfRange(whole, p1.length + p2.length, whole.length));
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.listParts("bucket", "big", id, 0, 10)));
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.completeMultipartUpload("bucket", "big", id,
                List.of(new CompletedPart(1, i1.etag())))));
        assertTrue(store.listMultipartUploads("bucket", ListUploadsRequest.all()).uploads().isEmpty());
    }

    @Test
    void completeRefusesBadPartLists() throws Exception {
        String id = store.createMultipartUpload("bucket", "k", ObjectAttributes.NONE, null).uploadId();
        byte[] small = randomBytes(21, 1000);
        byte[] big = randomBytes(22, 5 * MIB);
        PartInfo s1 = store.uploadPart("bucket", "k", id, 1, new ByteArrayInputStream(small), small.length, PutOptions.DEFAULT);
        PartInfo b2 = store.uploadPart("bucket", "k", id, 2, new ByteArrayInputStream(big), big.length, PutOptions.DEFAULT);
        PartInfo s3 = store.uploadPart("bucket", "k", id, 3, new ByteArrayInputStream(small), small.length, PutOptions.DEFAULT);
        assertEquals(StoreError.MALFORMED_XML, error(() -> store.completeMultipartUpload("bucket", "k", id, List.of())));
        assertEquals(StoreError.INVALID_PART_ORDER, error(() -> store.completeMultipartUpload("bucket", "k", id,
                List.of(new CompletedPart(2, b2.etag()), new CompletedPart(1, s1.etag())))));
        assertEquals(StoreError.INVALID_PART_ORDER, error(() -> store.completeMultipartUpload("bucket", "k", id,
                List.of(new CompletedPart(2, b2.etag()), new CompletedPart(2, b2.etag())))));
        assertEquals(StoreError.INVALID_PART, error(() -> store.completeMultipartUpload("bucket", "k", id,
                List.of(new CompletedPart(2, s1.etag())))));
        assertEquals(StoreError.INVALID_PART, error(() -> store.completeMultipartUpload("bucket", "k", id,
                List.of(new CompletedPart(4, s1.etag())))));
        assertEquals(StoreError.INVALID_PART, error(() -> store.completeMultipartUpload("bucket", "k", id,
                List.of(new CompletedPart(2, b2.etag(), Map.of(ChecksumAlgorithm.CRC32, "AAAAAA=="))))));
        assertEquals(StoreError.ENTITY_TOO_SMALL, error(() -> store.completeMultipartUpload("bucket", "k", id,
                List.of(new CompletedPart(1, s1.etag()), new CompletedPart(2, b2.etag())))));
        for (int bad : new int[] {0, -1, 10_001}) {
            assertEquals(StoreError.INVALID_ARGUMENT, error(() -> store.uploadPart("bucket", "k", id, bad,
                    new ByteArrayInputStream(small), small.length, PutOptions.DEFAULT)), "part " + bad);
        }
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.uploadPart("bucket", "other-key", id, 1,
                new ByteArrayInputStream(small), small.length, PutOptions.DEFAULT)));
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.uploadPart("bucket", "k", "../../etc", 1,
                new ByteArrayInputStream(small), small.length, PutOptions.DEFAULT)));
        assertEquals(StoreError.BAD_DIGEST, error(() -> store.uploadPart("bucket", "k", id, 3, new ByteArrayInputStream(big),
                big.length, PutOptions.DEFAULT.withVerifier(d -> {
                    throw new StoreException(StoreError.BAD_DIGEST, "planted");
                }))));
        assertThrows(IOException.class, () -> store.uploadPart("bucket", "k", id, 3, StoreFixtures.failingAfter(big, 100),
                big.length, PutOptions.DEFAULT));
        assertEquals(s3.etag(), store.listParts("bucket", "k", id, 2, 10).parts().getFirst().etag(),
                "a refused part left the earlier one");
        // the last part may be small; unnamed parts are dropped
        PutResult done = store.completeMultipartUpload("bucket", "k", id,
                List.of(new CompletedPart(2, b2.etag()), new CompletedPart(3, s3.etag())));
        assertEquals(big.length + small.length, done.size());
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.abortMultipartUpload("bucket", "k", id)));
    }

    @Test
    void abortAndListUploads() throws Exception {
        UploadInfo a1 = store.createMultipartUpload("bucket", "a", ObjectAttributes.NONE, null);
        UploadInfo a2 = store.createMultipartUpload("bucket", "a", ObjectAttributes.NONE, null);
        UploadInfo b = store.createMultipartUpload("bucket", "b/x", ObjectAttributes.NONE, ChecksumAlgorithm.SHA1);
        UploadInfo c = store.createMultipartUpload("bucket", "c", ObjectAttributes.NONE, null);
        UploadsPage all = store.listMultipartUploads("bucket", ListUploadsRequest.all());
        assertEquals(List.of("a", "a", "b/x", "c"), all.uploads().stream().map(UploadInfo::key).toList());
        assertFalse(all.truncated());
        UploadsPage first = store.listMultipartUploads("bucket", new ListUploadsRequest("", null, null, 3));
        assertTrue(first.truncated());
        assertEquals("b/x", first.nextKeyMarker());
        assertEquals(b.uploadId(), first.nextUploadIdMarker());
        UploadsPage next = store.listMultipartUploads("bucket",
                new ListUploadsRequest("", first.nextKeyMarker(), first.nextUploadIdMarker(), 3));
        assertEquals(List.of(c.uploadId()), next.uploads().stream().map(UploadInfo::uploadId).toList());
        assertEquals(List.of("b/x", "c"), store.listMultipartUploads("bucket", new ListUploadsRequest("", "a", null, 10))
                .uploads().stream().map(UploadInfo::key).toList());
        assertEquals(List.of(b.uploadId()), store.listMultipartUploads("bucket", new ListUploadsRequest("b/", null, null, 10))
                .uploads().stream().map(UploadInfo::uploadId).toList());
        store.uploadPart("bucket", "a", a1.uploadId(), 1, new ByteArrayInputStream(new byte[3]), 3, PutOptions.DEFAULT);
        store.abortMultipartUpload("bucket", "a", a1.uploadId());
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.listParts("bucket", "a", a1.uploadId(), 0, 10)));
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.abortMultipartUpload("bucket", "a", a1.uploadId())));
        assertEquals(StoreError.NO_SUCH_UPLOAD, error(() -> store.uploadPart("bucket", "a", a1.uploadId(), 1,
                new ByteArrayInputStream(new byte[3]), 3, PutOptions.DEFAULT)));
        assertEquals(ChecksumAlgorithm.SHA1, store.listParts("bucket", "b/x", b.uploadId(), 0, 10).upload().checksumAlgorithm());
        assertEquals(3, store.listMultipartUploads("bucket", ListUploadsRequest.all()).uploads().size());
        assertEquals(List.of(a2.uploadId()), store.listMultipartUploads("bucket", new ListUploadsRequest("a", null, null, 10))
                .uploads().stream().filter(u -> u.key().equals("a")).map(UploadInfo::uploadId).toList());
        assertEquals(StoreError.NO_SUCH_BUCKET, error(() -> store.createMultipartUpload("nob", "k", ObjectAttributes.NONE, null)));
        assertEquals(StoreError.KEY_TOO_LONG, error(() -> store.createMultipartUpload("bucket", "k".repeat(1025),
                ObjectAttributes.NONE, null)));
    }

    // ---- concurrency

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
