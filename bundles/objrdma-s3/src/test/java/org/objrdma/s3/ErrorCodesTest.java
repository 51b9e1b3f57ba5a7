package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.SdkSigner.Body;
import org.objrdma.s3.rdma.RdmaServices;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/** The gateway reports the S3 code of every error answer once, and nothing for an answer that is not an error. */
class ErrorCodesTest {

    private EmbeddedStore store;
    private final List<String> codes = new CopyOnWriteArrayList<>();
    private S3Gateway gateway;

    @BeforeEach
    void start() {
        store = EmbeddedStores.inMemory(Map.of(SdkSigner.AK, SdkSigner.SECRET));
        gateway = new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC(), RdmaServices.NONE, codes::add);
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private TestResponse call(String method, String path, byte[] body) throws IOException {
        TestResponse out = new TestResponse();
        gateway.handle(SdkSigner.sign(method, path, "", body, Body.SIGNED_HASH, Instant.now()), out);
        return out;
    }

    @Test
    void eachErrorAnswerReportsItsCodeOnce() throws IOException {
        TestResponse unsigned = new TestResponse();
        gateway.handle(new TestRequest("GET", "/bkt/key", ""), unsigned);
        assertEquals(403, unsigned.status);
        assertEquals(List.of("AccessDenied"), codes);

        assertEquals(404, call("GET", "/bkt/key", null).status);
        assertEquals(200, call("PUT", "/bkt", new byte[0]).status);
        assertEquals(404, call("GET", "/bkt/key", null).status);
        assertEquals(404, call("HEAD", "/bkt/key", null).status, "a HEAD error has no body, and still counts");
        assertEquals(List.of("AccessDenied", "NoSuchBucket", "NoSuchKey", "NoSuchKey"), codes);
    }

    @Test
    void answersThatAreNotErrorsReportNothing() throws IOException {
        assertEquals(200, call("PUT", "/bkt", new byte[0]).status);
        assertEquals(200, call("PUT", "/bkt/key", "x".getBytes(StandardCharsets.UTF_8)).status);
        TestResponse got = call("GET", "/bkt/key", null);
        assertEquals(200, got.status);
        TestResponse notModified = new TestResponse();
        gateway.handle(SdkSigner.sign("GET", "/bkt/key", "", null, Body.SIGNED_HASH, Instant.now(),
                "If-None-Match", got.header("ETag")), notModified);
        assertEquals(304, notModified.status);
        assertTrue(codes.isEmpty(), codes.toString());
    }

    @Test
    void aListenerThatThrowsDoesNotCostTheAnswer() throws IOException {
        S3Gateway throwing = new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC(), RdmaServices.NONE, code -> {
            throw new IllegalStateException("broken counter");
        });
        TestResponse out = new TestResponse();
        throwing.handle(new TestRequest("GET", "/bkt/key", ""), out);
        assertEquals(403, out.status);
        assertTrue(new String(out.bytes(), StandardCharsets.UTF_8).contains("<Code>AccessDenied</Code>"));
    }

    @Test
    void aMissingListenerIsRefused() {
        assertThrows(NullPointerException.class,
                () -> new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC(), RdmaServices.NONE, null));
    }
}
