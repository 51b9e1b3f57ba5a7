package org.objrdma.store.s3.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.api.store.CompletedPart;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.PartRange;
import org.objrdma.api.store.ListPage;
import org.objrdma.api.store.ListRequest;
import org.objrdma.api.store.ListUploadsRequest;
import org.objrdma.api.store.ObjectContent;
import org.objrdma.api.store.PutOptions;
import org.objrdma.api.store.PutResult;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The adapter's own behaviour beyond the contract suite, against s3proxy: the multipart path for large
 * puts (segment and stream) with its veto, ranged reads into a segment from a multipart object, a read
 * after an overwrite refused rather than mixed, keys s3proxy can hold, and continuation tokens that a
 * second adapter on the same remote (another gateway) accepts while a foreign one is refused.
 */
class S3ObjectStoreTest {
    private static final int MIB = 1024 * 1024;
    private static final Map<String, String> USERS = Map.of("ALICEKEY", "alice-secret-1234");
    @TempDir
    static Path dir;
    private static S3ProxyServer remote;
    private static int generation;
    private S3ObjectStore store;
    private String prefix;

    @BeforeAll
    static void start() throws Exception {
        remote = new S3ProxyServer(dir);
    }

    @AfterAll
    static void stop() throws Exception {
        remote.close();
    }

    private S3ObjectStore open(String prefix, String serviceSecret) throws StoreException {
        Map<String, Object> p = new java.util.HashMap<>(S3StoreContractTest.config(remote, prefix, USERS));
        p.put("multipart.threshold", 6 * MIB);
        p.put("multipart.part.size", 5 * MIB);
        if (serviceSecret != null) {
            p.put("service.secret.key", serviceSecret);
        }
        return S3ObjectStore.open(p);
    }

    @BeforeEach
    void openStore() throws Exception {
        prefix = "u" + (++generation) + "-";
        store = open(prefix, null);
        store.createBucket("ALICEKEY", "bucket");
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    private static byte[] random(int seed, int length) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private byte[] get(String key) throws Exception {
        try (ObjectContent c = store.open("bucket", key, Conditions.NONE); InputStream in = c.stream()) {
            return in.readAllBytes();
        }
    }

    @Test
    void largePutsGoMultipartAndReadBackRangedIntoASegment() throws Exception {
        byte[] data = random(1, 13 * MIB + 5);
        PutResult streamed = store.put("bucket", "streamed", new ByteArrayInputStream(data), -1, PutOptions.DEFAULT);
        assertTrue(streamed.etag().endsWith("-3"), "13 MiB in 5 MiB parts: " + streamed.etag());
        assertEquals(data.length, streamed.size());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(data.length);
            seg.copyFrom(MemorySegment.ofArray(data));
            PutResult fromSegment = store.put("bucket", "segment", seg, PutOptions.DEFAULT);
            assertEquals(streamed.etag(), fromSegment.etag(), "same bytes, same parts, same multipart ETag");
            MemorySegment staging = arena.allocate(6 * MIB);
            try (ObjectContent c = store.open("bucket", "segment", Conditions.NONE)) {
                assertEquals(3, c.info().partsCount());
                assertEquals(6 * MIB, c.read(4 * MIB, staging), "a range across a part boundary");
                assertArrayEquals(Arrays.copyOfRange(data, 4 * MIB, 10 * MIB), staging.toArray(ValueLayout.JAVA_BYTE));
                assertEquals(3 * MIB + 5, c.read(10 * MIB, staging));
                // the adapter split it, the remote's ETag says 3 parts: ?partNumber= answers those parts
                assertEquals(new PartRange(2, 3, 5 * MIB, 5 * MIB), c.part(2));
                assertEquals(new PartRange(3, 3, 10 * MIB, 3 * MIB + 5), c.part(3));
            }
        }
        assertArrayEquals(data, get("streamed"));
    }

    @Test
    void aVetoOnTheMultipartPathLeavesNothingRemote() throws Exception {
        byte[] data = random(2, 11 * MIB);
        PutOptions veto = PutOptions.DEFAULT.withVerifier(d -> {
            throw new StoreException(StoreError.BAD_DIGEST, "planted");
        });
        StoreException e = assertThrows(StoreException.class,
                () -> store.put("bucket", "k", new ByteArrayInputStream(data), data.length, veto));
        assertEquals(StoreError.BAD_DIGEST, e.error());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(data.length);
            assertEquals(StoreError.BAD_DIGEST,
                    assertThrows(StoreException.class, () -> store.put("bucket", "k", seg, veto)).error());
        }
        assertEquals(StoreError.NO_SUCH_KEY, assertThrows(StoreException.class,
                () -> store.head("bucket", "k", Conditions.NONE)).error());
        assertTrue(store.listMultipartUploads("bucket", ListUploadsRequest.all()).uploads().isEmpty(),
                "the veto ran before any upload was begun");
    }

    @Test
    void anOpenedHandleKeepsItsPartLayoutAfterAnOverwriteAndAForeignUploadHasNone() throws Exception {
        String id = store.createMultipartUpload("bucket", "mp", ObjectAttributes.NONE, null).uploadId();
        byte[][] parts = {random(5, 5 * MIB), random(6, 77)};
        List<CompletedPart> done = new java.util.ArrayList<>();
        for (int i = 0; i < parts.length; i++) {
            done.add(new CompletedPart(i + 1, store.uploadPart("bucket", "mp", id, i + 1,
                    new ByteArrayInputStream(parts[i]), parts[i].length, PutOptions.DEFAULT).etag()));
        }
        store.completeMultipartUpload("bucket", "mp", id, done);
        try (ObjectContent old = store.open("bucket", "mp", Conditions.NONE)) {
            store.put("bucket", "mp", new ByteArrayInputStream(random(7, 10)), 10, PutOptions.DEFAULT);
            assertEquals(new PartRange(2, 2, 5 * MIB, 77), old.part(2), "the layout of the version opened");
            assertEquals(StoreError.INVALID_PART_NUMBER, assertThrows(StoreException.class, () -> old.part(3)).error());
        }
        // a multipart object completed directly on the remote, by another client: no layout was recorded
        try (S3Client bare = S3Client.builder().endpointOverride(remote.endpoint()).region(Region.US_EAST_1)
                .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        S3ProxyServer.SERVICE_KEY, S3ProxyServer.SERVICE_SECRET))).build()) {
            String remoteBucket = prefix + "bucket";
            String upload = bare.createMultipartUpload(b -> b.bucket(remoteBucket).key("foreign")).uploadId();
            String etag = bare.uploadPart(b -> b.bucket(remoteBucket).key("foreign").uploadId(upload).partNumber(1),
                    RequestBody.fromBytes(parts[1])).eTag();
            bare.completeMultipartUpload(b -> b.bucket(remoteBucket).key("foreign").uploadId(upload).multipartUpload(
                    m -> m.parts(software.amazon.awssdk.services.s3.model.CompletedPart.builder().partNumber(1)
                            .eTag(etag).build())));
        }
        try (ObjectContent foreign = store.open("bucket", "foreign", Conditions.NONE)) {
            assertEquals(1, foreign.info().partsCount());
            StoreException e = assertThrows(StoreException.class, () -> foreign.part(1));
            assertEquals(StoreError.NOT_IMPLEMENTED, e.error());
            assertTrue(e.getMessage().contains("no part layout is recorded"), e.getMessage());
            assertEquals(StoreError.INVALID_PART_NUMBER, assertThrows(StoreException.class, () -> foreign.part(2)).error());
        }
    }

    @Test
    void aReadAfterTheKeyWasOverwrittenIsRefusedNotMixed() throws Exception {
        store.put("bucket", "k", new ByteArrayInputStream(random(3, 1000)), 1000, PutOptions.DEFAULT);
        try (ObjectContent c = store.open("bucket", "k", Conditions.NONE)) {
            store.put("bucket", "k", new ByteArrayInputStream(random(4, 1000)), 1000, PutOptions.DEFAULT);
            // at 10, not where the opening GET's body stands: its own pinned GET (that body is the opened version)
            StoreException e = assertThrows(StoreException.class, () -> c.stream(10, 10));
            assertEquals(StoreError.INTERNAL_ERROR, e.error());
            assertTrue(e.getMessage().contains("overwritten or deleted after it was opened"), e.getMessage());
        }
    }

    @Test
    void keysS3ProxyCanHoldRoundTripAndListInOrder() throws Exception {
        List<String> keys = List.of("a/b/c", "./x", "%2F%2e%2e", "100%", "sp ace", "tab\tnl\n", "ünïcødé/😀",
                "bucket.meta", ".lock", "CON", "a\\b", "x".repeat(200));
        for (int i = 0; i < keys.size(); i++) {
            store.put("bucket", keys.get(i), new ByteArrayInputStream(new byte[] {(byte) i}), 1, PutOptions.DEFAULT);
        }
        for (int i = 0; i < keys.size(); i++) {
            assertArrayEquals(new byte[] {(byte) i}, get(keys.get(i)), keys.get(i));
        }
        assertEquals(StoreError.KEY_TOO_LONG, assertThrows(StoreException.class, () -> store.put("bucket",
                "x".repeat(1025), new ByteArrayInputStream(new byte[1]), 1, PutOptions.DEFAULT)).error());
        ListPage page = store.list("bucket", new ListRequest("", "/", 1000, null, null));
        assertEquals(List.of("a/", "ünïcødé/"), page.commonPrefixes());
        assertEquals(keys.size() - 2, page.objects().size());
    }

    @Test
    void anotherGatewayOnTheSameRemoteContinuesAListingAForeignTokenIsRefused() throws Exception {
        for (String k : List.of("a", "b", "c")) {
            store.put("bucket", k, new ByteArrayInputStream(new byte[1]), 1, PutOptions.DEFAULT);
        }
        ListPage first = store.list("bucket", new ListRequest("", "", 1, null, null));
        assertTrue(first.truncated());
        try (S3ObjectStore second = open(prefix, null)) {
            ListPage next = second.list("bucket", new ListRequest("", "", 1000, first.nextContinuationToken(), null));
            assertEquals(List.of("b", "c"), next.objects().stream().map(o -> o.key()).toList());
            assertEquals("ALICEKEY", second.headBucket("bucket").owner(), "ownership lives on the remote");
            assertTrue(second.isAuthorized("ALICEKEY", org.objrdma.api.store.StoreAction.GET_OBJECT, "bucket", "a"));
        }
        String forged = first.nextContinuationToken().substring(0, first.nextContinuationToken().length() - 2) + "AA";
        assertEquals(StoreError.INVALID_ARGUMENT, assertThrows(StoreException.class,
                () -> store.list("bucket", new ListRequest("", "", 10, forged, null))).error());
        assertFalse(store.list("bucket", ListRequest.all()).truncated());
    }

    /**
     * Issue 28 (gateway cost): opening is one GET whose body serves the first read, no HEAD + GET. Seen from the
     * outside: bytes of a small object opened before an overwrite are still the opened version's (the old code's
     * read after the overwrite was a second, If-Match pinned GET and failed).
     */
    @Test
    void openingIsOneGetWhoseBodyServesTheFirstRead() throws Exception {
        byte[] first = random(31, 4096);
        byte[] second = random(32, 4096);
        store.put("bucket", "k", MemorySegment.ofArray(first), PutOptions.DEFAULT);
        try (ObjectContent c = store.open("bucket", "k", Conditions.NONE)) {
            store.put("bucket", "k", MemorySegment.ofArray(second), PutOptions.DEFAULT);
            Thread.sleep(200);
            try (InputStream in = c.stream(0, 4096)) {
                assertArrayEquals(first, in.readAllBytes(), "the opening GET's body, not a second request");
            }
            StoreException later = assertThrows(StoreException.class, () -> c.stream(0, 4096).readAllBytes());
            assertEquals(StoreError.INTERNAL_ERROR, later.error(), "a second read is its own pinned GET: refused, not mixed");
        }
        assertArrayEquals(second, get("k"));
    }

    /** Chunk reads from 0 take the held body in order; a read elsewhere is its own ranged GET; both exact. */
    @Test
    void sequentialChunkReadsAndOtherRangesAreExact() throws Exception {
        byte[] data = random(33, 3 * MIB + 17);
        store.put("bucket", "seq", MemorySegment.ofArray(data), PutOptions.DEFAULT);
        try (Arena arena = Arena.ofConfined(); ObjectContent c = store.open("bucket", "seq", Conditions.NONE)) {
            MemorySegment chunk = arena.allocate(MIB);
            assertEquals(MIB, c.read(2 * MIB, chunk), "out of order first: a ranged GET");
            assertArrayEquals(Arrays.copyOfRange(data, 2 * MIB, 3 * MIB), chunk.toArray(ValueLayout.JAVA_BYTE));
            for (int at = 0; at < data.length; at += MIB) {
                long n = c.read(at, chunk);
                assertEquals(Math.min(MIB, data.length - at), n);
                assertArrayEquals(Arrays.copyOfRange(data, at, at + (int) n),
                        chunk.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), "chunk at " + at);
            }
        }
        try (ObjectContent c = store.open("bucket", "seq", Conditions.NONE); InputStream in = c.stream(5, 10)) {
            assertArrayEquals(Arrays.copyOfRange(data, 5, 15), in.readAllBytes(), "a range not at 0");
        }
        try (ObjectContent c = store.open("bucket", "seq", Conditions.NONE); InputStream in = c.stream(0, 10)) {
            assertArrayEquals(Arrays.copyOfRange(data, 0, 10), in.readAllBytes(), "a prefix of the held body (aborted after)");
        }
        assertArrayEquals(data, get("seq"), "the adapter still serves after aborted bodies");
        StoreException refused = assertThrows(StoreException.class, () -> store.open("bucket", "seq",
                new Conditions("\"nope\"", null, null, null)));
        assertEquals(StoreError.PRECONDITION_FAILED, refused.error());
        assertArrayEquals(data, get("seq"));
    }

    /** A put of exactly multipart.threshold bytes is one PutObject (its ETag the MD5 hex, no part count). */
    @Test
    void aPutOfExactlyTheThresholdIsOnePutObject() throws Exception {
        byte[] data = random(34, 6 * MIB);
        PutResult r = store.put("bucket", "six", new java.io.ByteArrayInputStream(data), data.length, PutOptions.DEFAULT);
        assertEquals(java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("MD5").digest(data)), r.etag());
        assertArrayEquals(data, get("six"));
    }

    /** A put into a bucket that does not exist (no HeadBucket first any more) is NoSuchBucket and stores nothing. */
    @Test
    void aPutIntoAMissingBucketIsNoSuchBucket() throws Exception {
        StoreException e = assertThrows(StoreException.class, () -> store.put("missing", "k",
                new java.io.ByteArrayInputStream(new byte[10]), 10, PutOptions.DEFAULT));
        assertEquals(StoreError.NO_SUCH_BUCKET, e.error());
        assertEquals(StoreError.NO_SUCH_BUCKET, assertThrows(StoreException.class,
                () -> store.put("missing", "k", MemorySegment.ofArray(new byte[10]), PutOptions.DEFAULT)).error());
        assertEquals(StoreError.NO_SUCH_BUCKET, assertThrows(StoreException.class, () -> store.put("missing", "big",
                new java.io.ByteArrayInputStream(new byte[7 * MIB]), 7 * MIB, PutOptions.DEFAULT)).error());
        assertEquals(StoreError.NO_SUCH_BUCKET, assertThrows(StoreException.class, () -> store.headBucket("missing")).error());
    }

    /**
     * Issue 28 (gateway cost): a body of known length streams to the remote while it arrives (no spool first),
     * and the veto still holds: when the verifier runs, nearly all of the body has already crossed to the remote
     * (the old code had sent none of it), yet a veto leaves the previous object whole.
     */
    @Test
    void aKnownLengthPutStreamsToTheRemoteAndAVetoStillCommitsNothing() throws Exception {
        try (CountingRelay relay = new CountingRelay(remote.endpoint())) {
            Map<String, Object> p = new java.util.HashMap<>(S3StoreContractTest.config(remote, prefix, USERS));
            p.put("endpoint", relay.endpoint().toString());
            try (S3ObjectStore relayed = S3ObjectStore.open(p)) {
                byte[] old = random(41, 1000);
                relayed.put("bucket", "streamed", new ByteArrayInputStream(old), old.length, PutOptions.DEFAULT);
                byte[] data = random(42, 4 * MIB);
                long before = relay.upstream();
                long[] atVerify = new long[1];
                PutOptions veto = PutOptions.DEFAULT.withVerifier(d -> {
                    // what the SDK wrote may still sit in socket buffers before the relay counts it: wait (bounded)
                    // for it; a spooling adapter has sent nothing at this point, however long one waits
                    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
                    while ((atVerify[0] = relay.upstream() - before) <= 3 * MIB && System.nanoTime() < deadline) {
                        try {
                            Thread.sleep(10);
                        } catch (InterruptedException ie) {
                            Thread.currentThread().interrupt();
                            break;
                        }
                    }
                    throw new StoreException(StoreError.BAD_DIGEST, "vetoed by the test");
                });
                StoreException e = assertThrows(StoreException.class, () -> relayed.put("bucket", "streamed",
                        new ByteArrayInputStream(data), data.length, veto));
                assertEquals(StoreError.BAD_DIGEST, e.error());
                assertTrue(atVerify[0] > 3 * MIB, "bytes at the remote when the verifier ran: " + atVerify[0]);
                assertArrayEquals(old, get("streamed"), "the vetoed body committed nothing");
                PutResult r = relayed.put("bucket", "streamed", new ByteArrayInputStream(data), data.length, PutOptions.DEFAULT);
                assertEquals(java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("MD5").digest(data)),
                        r.etag());
                assertArrayEquals(data, get("streamed"));
                StoreException shortBody = assertThrows(StoreException.class, () -> relayed.put("bucket", "streamed",
                        new ByteArrayInputStream(old, 0, 999), 1000, PutOptions.DEFAULT));
                assertEquals(StoreError.INCOMPLETE_BODY, shortBody.error());
                StoreException longBody = assertThrows(StoreException.class, () -> relayed.put("bucket", "streamed",
                        new ByteArrayInputStream(old), 999, PutOptions.DEFAULT));
                assertEquals(StoreError.INVALID_ARGUMENT, longBody.error());
                java.io.IOException broken = assertThrows(java.io.IOException.class, () -> relayed.put("bucket",
                        "streamed", new java.io.SequenceInputStream(new ByteArrayInputStream(old), new InputStream() {
                            @Override
                            public int read() throws java.io.IOException {
                                throw new java.io.IOException("the client went away");
                            }
                        }), 2000, PutOptions.DEFAULT));
                assertEquals("the client went away", broken.getMessage());
                assertArrayEquals(data, get("streamed"), "no refused body replaced the object");
            }
        }
    }
}
