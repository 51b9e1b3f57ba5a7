package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.SdkSigner.Body;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * A PutObject / UploadPart framed by plain {@code Transfer-Encoding: chunked}, without Content-Length and
 * without aws-chunked (issue 25): stored, with {@code max.put.bytes} held while the body streams.
 */
class ChunkedPutTest {

    private static final int LIMIT = 1 << 20;

    private EmbeddedStore store;
    private S3Gateway gateway;

    @BeforeEach
    void start() throws Exception {
        store = EmbeddedStores.inMemory(Map.of(SdkSigner.AK, SdkSigner.SECRET));
        gateway = new S3Gateway(store, new S3Settings("us-east-1", "", Duration.ofMinutes(15), 1 << 20, LIMIT),
                Clock.systemUTC());
        assertEquals(200, call(SdkSigner.sign("PUT", "/bkt", "", new byte[0], Body.SIGNED_HASH, Instant.now())).status);
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private TestResponse call(TestRequest r) throws IOException {
        TestResponse out = new TestResponse();
        gateway.handle(r, out);
        return out;
    }

    /** Signed with no Content-Length (UNSIGNED-PAYLOAD), the body sent as a stream of unknown length. */
    private static TestRequest chunked(String path, String query, byte[] body, boolean transferEncoding) throws IOException {
        TestRequest r = SdkSigner.sign("PUT", path, query, null, Body.UNSIGNED, Instant.now());
        if (transferEncoding) {
            r.header("Transfer-Encoding", "chunked");
        }
        return r.body(new ByteArrayInputStream(body));
    }

    private byte[] get(String path) throws IOException {
        return call(SdkSigner.sign("GET", path, "", null, Body.SIGNED_HASH, Instant.now())).bytes();
    }

    @Test
    void aChunkedBodyIsStored() throws Exception {
        byte[] data = S3PartNumberTest.random(LIMIT, 1);
        TestResponse r = call(chunked("/bkt/c", "", data, true));
        assertEquals(200, r.status, r.text());
        assertArrayEquals(data, get("/bkt/c"), "exactly max.put.bytes is allowed");
    }

    @Test
    void aChunkedBodyPastTheLimitIsEntityTooLargeAndStoresNothing() throws Exception {
        byte[] old = {7};
        assertEquals(200, call(SdkSigner.sign("PUT", "/bkt/c", "", old, Body.SIGNED_HASH, Instant.now())).status);
        TestResponse r = call(chunked("/bkt/c", "", S3PartNumberTest.random(LIMIT + 1, 2), true));
        assertEquals(400, r.status, r.text());
        assertTrue(r.text().contains("<Code>EntityTooLarge</Code>"), r.text());
        assertArrayEquals(old, get("/bkt/c"), "the old object stays");
        String id = call(SdkSigner.sign("POST", "/bkt/mp", "uploads", new byte[0], Body.SIGNED_HASH, Instant.now()))
                .text().replaceAll("(?s).*<UploadId>([^<]+)</UploadId>.*", "$1");
        TestResponse part = call(chunked("/bkt/mp", "partNumber=1&uploadId=" + id, S3PartNumberTest.random(LIMIT + 1, 3), true));
        assertEquals(400, part.status, part.text());
        TestResponse ok = call(chunked("/bkt/mp", "partNumber=1&uploadId=" + id, S3PartNumberTest.random(1000, 4), true));
        assertEquals(200, ok.status, ok.text());
    }

    @Test
    void noLengthAndNoChunkingIsStillMissingContentLength() throws Exception {
        TestResponse r = call(chunked("/bkt/n", "", new byte[10], false));
        assertEquals(411, r.status, r.text());
        assertEquals(404, call(SdkSigner.sign("GET", "/bkt/n", "", null, Body.SIGNED_HASH, Instant.now())).status);
    }
}
