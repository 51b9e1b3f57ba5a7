package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.store.PutOptions;
import org.objrdma.s3.SdkSigner.Body;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/** GET and HEAD {@code ?partNumber=N}: S3's status, Content-Range, parts count and errors. */
class S3PartNumberTest {
    private static final int MIB = 1024 * 1024;

    private EmbeddedStore store;
    private S3Gateway gateway;
    private final byte[][] parts = {random(5 * MIB, 1), random(5 * MIB, 2), random(100, 3)};

    @BeforeEach
    void start() throws Exception {
        store = EmbeddedStores.inMemory(Map.of(SdkSigner.AK, SdkSigner.SECRET));
        gateway = new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC());
        store.createBucket(SdkSigner.AK, "bkt");
        StoredMultipart.put(store, "bkt", "mp", parts);
        store.put("bkt", "single", new ByteArrayInputStream(random(10, 4)), 10, PutOptions.DEFAULT);
        store.put("bkt", "empty", new ByteArrayInputStream(new byte[0]), 0, PutOptions.DEFAULT);
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private TestResponse call(String method, String path, String query, String... headers) throws IOException {
        TestResponse out = new TestResponse();
        gateway.handle(SdkSigner.sign(method, path, query, null, Body.SIGNED_HASH, Instant.now(), headers), out);
        return out;
    }

    private static void assertError(TestResponse r, int status, String code) {
        assertEquals(status, r.status, r.text());
        assertTrue(r.text().contains("<Code>" + code + "</Code>"), r.text());
    }

    @Test
    void eachPartOfAMultipartObjectIsA206WithItsRangeAndThePartsCount() throws Exception {
        long total = 10L * MIB + 100;
        long offset = 0;
        for (int n = 1; n <= parts.length; n++) {
            TestResponse r = call("GET", "/bkt/mp", "partNumber=" + n);
            assertEquals(206, r.status, r.text());
            long last = offset + parts[n - 1].length - 1;
            assertEquals("bytes " + offset + "-" + last + "/" + total, r.header("Content-Range"));
            assertEquals(parts[n - 1].length, r.contentLength);
            assertEquals("3", r.header("x-amz-mp-parts-count"));
            assertTrue(r.header("ETag").endsWith("-3\""), r.header("ETag"));
            assertArrayEquals(parts[n - 1], r.bytes(), "part " + n);

            TestResponse h = call("HEAD", "/bkt/mp", "partNumber=" + n);
            assertEquals(206, h.status);
            assertEquals(r.header("Content-Range"), h.header("Content-Range"));
            assertEquals(parts[n - 1].length, h.contentLength);
            assertEquals("3", h.header("x-amz-mp-parts-count"));
            assertEquals(0, h.bytes().length);
            offset = last + 1;
        }
        TestResponse whole = call("GET", "/bkt/mp", "");
        assertEquals(200, whole.status);
        assertNull(whole.header("x-amz-mp-parts-count"), "no parts count without partNumber, as S3");
        assertNull(call("HEAD", "/bkt/mp", "").header("x-amz-mp-parts-count"));
    }

    @Test
    void aSinglePutIsPartOneOnly() throws Exception {
        TestResponse r = call("GET", "/bkt/single", "partNumber=1");
        assertEquals(206, r.status, "S3 answers a partNumber read 206 even when it is the whole object");
        assertEquals("bytes 0-9/10", r.header("Content-Range"));
        assertNull(r.header("x-amz-mp-parts-count"), "S3 sends no parts count for a single put");
        assertArrayEquals(random(10, 4), r.bytes());
        assertError(call("GET", "/bkt/single", "partNumber=2"), 400, "InvalidPart");
        TestResponse empty = call("GET", "/bkt/empty", "partNumber=1");
        assertEquals(200, empty.status, "an empty part has no Content-Range to print");
        assertEquals(0, empty.contentLength);
        assertNull(empty.header("Content-Range"));
    }

    @Test
    void badPartNumbersAndPartNumberWithRange() throws Exception {
        // past the last part: 400 InvalidPart (issue 25: what S3-compatible servers and ceph's s3-tests expect)
        assertError(call("GET", "/bkt/mp", "partNumber=4"), 400, "InvalidPart");
        TestResponse head = call("HEAD", "/bkt/mp", "partNumber=4");
        assertEquals(400, head.status);
        assertEquals(0, head.bytes().length, "HEAD errors have no body");
        assertError(call("GET", "/bkt/mp", "partNumber=10000"), 400, "InvalidPart");
        for (String bad : new String[] {"0", "10001", "-1", "two", "1.5"}) {
            assertError(call("GET", "/bkt/mp", "partNumber=" + bad), 400, "InvalidArgument");
        }
        TestResponse both = call("GET", "/bkt/mp", "partNumber=1", "Range", "bytes=0-9");
        assertError(both, 400, "InvalidRequest");
        assertTrue(both.text().contains("Cannot specify both Range header and partNumber query parameter"));
        assertError(call("GET", "/bkt/nope", "partNumber=1"), 404, "NoSuchKey");
        assertEquals(304, call("GET", "/bkt/mp", "partNumber=2", "If-None-Match",
                call("HEAD", "/bkt/mp", "").header("ETag")).status, "conditions apply before the part");
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }
}
