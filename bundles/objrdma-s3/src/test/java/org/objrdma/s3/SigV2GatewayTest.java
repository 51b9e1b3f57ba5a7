package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.SdkSigner.Body;
import org.objrdma.s3.auth.SigV2;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * SigV2 through the whole gateway (routing, body checks, the store): header-signed and presigned requests are
 * served, the V2 query parameters are not taken for sub-resources, Content-MD5 protects the unsigned body, and
 * {@code acceptSigV2 = false} refuses V2.
 */
class SigV2GatewayTest {

    private EmbeddedStore store;

    @BeforeEach
    void start() {
        store = EmbeddedStores.inMemory(Map.of(SdkSigner.AK, SdkSigner.SECRET));
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private TestResponse call(S3Gateway gateway, TestRequest r) throws IOException {
        TestResponse out = new TestResponse();
        gateway.handle(r, out);
        return out;
    }

    private static String now() {
        return DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC));
    }

    /** {@code r} signed with V2 in the header (Date, Content-MD5 and Content-Type as set on it). */
    private static TestRequest signed(TestRequest r, String subResources) {
        String toSign = SigV2.stringToSign(r.method(), r.header("Content-MD5"), r.header("Content-Type"),
                r.header("x-amz-date") != null ? "" : r.header("Date"), SigV2.canonicalAmzHeaders(r),
                r.rawPath() + subResources);
        return r.header("Authorization", "AWS " + SdkSigner.AK + ":" + SigV2.signature(SdkSigner.SECRET, toSign));
    }

    private static String md5(byte[] b) throws Exception {
        return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(b));
    }

    private S3Gateway gateway(boolean acceptSigV2) throws IOException {
        S3Gateway g = new S3Gateway(store, S3Settings.DEFAULTS.withSigV2(acceptSigV2), Clock.systemUTC());
        assertEquals(200, call(g, SdkSigner.sign("PUT", "/bkt", "", new byte[0], Body.SIGNED_HASH,
                java.time.Instant.now())).status);
        return g;
    }

    @Test
    void headerSignedPutGetAndMultipartAreServed() throws Exception {
        S3Gateway g = gateway(true);
        byte[] data = "version two".getBytes(StandardCharsets.UTF_8);
        TestRequest put = signed(new TestRequest("PUT", "/bkt/a%20b", "").header("Date", now())
                .header("Content-Type", "text/plain").header("Content-MD5", md5(data))
                .header("x-amz-meta-who", "v2").header("Content-Length", String.valueOf(data.length)).body(data), "");
        assertEquals(200, call(g, put).status, () -> "");
        TestResponse got = call(g, signed(new TestRequest("GET", "/bkt/a%20b", "").header("x-amz-date", now()), ""));
        assertEquals("version two", got.text());
        assertEquals("v2", got.header("x-amz-meta-who"));
        TestResponse created = call(g, signed(new TestRequest("POST", "/bkt/mp", "uploads").header("Date", now()),
                "?uploads"));
        assertEquals(200, created.status, created.text());
        assertTrue(created.text().contains("<UploadId>"), created.text());
    }

    @Test
    void presignedQueryIsNotTakenForSubResources() throws Exception {
        S3Gateway g = gateway(true);
        byte[] data = "p".getBytes(StandardCharsets.UTF_8);
        call(g, signed(new TestRequest("PUT", "/bkt/pre", "").header("Date", now())
                .header("Content-Length", "1").body(data), ""));
        long expires = System.currentTimeMillis() / 1000 + 300;
        String sig = SigV2.signature(SdkSigner.SECRET, "GET\n\n\n" + expires + "\n/bkt/pre");
        TestRequest presigned = new TestRequest("GET", "/bkt/pre", "AWSAccessKeyId=" + SdkSigner.AK + "&Signature="
                + java.net.URLEncoder.encode(sig, StandardCharsets.UTF_8) + "&Expires=" + expires);
        TestResponse r = call(g, presigned);
        assertEquals(200, r.status, r.text());
        assertEquals("p", r.text());
    }

    @Test
    void contentMd5GuardsTheUnsignedBody() throws Exception {
        S3Gateway g = gateway(true);
        byte[] data = "body".getBytes(StandardCharsets.UTF_8);
        TestResponse bad = call(g, signed(new TestRequest("PUT", "/bkt/md5", "").header("Date", now())
                .header("Content-MD5", md5("other".getBytes(StandardCharsets.UTF_8)))
                .header("Content-Length", "4").body(data), ""));
        assertEquals(400, bad.status, bad.text());
        assertTrue(bad.text().contains("<Code>BadDigest</Code>"), bad.text());
        TestResponse malformed = call(g, signed(new TestRequest("PUT", "/bkt/md5", "").header("Date", now())
                .header("Content-MD5", "nope").header("Content-Length", "4").body(data), ""));
        assertTrue(malformed.text().contains("<Code>InvalidDigest</Code>"), malformed.text());
        // a body shorter than its Content-Length: IncompleteBody, as under SigV4 (the store's length check)
        TestResponse shortBody = call(g, signed(new TestRequest("PUT", "/bkt/md5", "").header("Date", now())
                .header("Content-MD5", md5(data)).header("Content-Length", "10").body(data), ""));
        assertEquals(400, shortBody.status, shortBody.text());
        assertTrue(shortBody.text().contains("<Code>IncompleteBody</Code>"), shortBody.text());
        TestResponse absent = call(g, signed(new TestRequest("GET", "/bkt/md5", "").header("Date", now()), ""));
        assertEquals(404, absent.status, absent.text());
    }

    @Test
    void turnedOffSigV2IsInvalidRequestAndStoresNothing() throws Exception {
        S3Gateway g = gateway(false);
        TestResponse r = call(g, signed(new TestRequest("PUT", "/bkt/off", "").header("Date", now())
                .header("Content-Length", "1").body(new byte[] {1}), ""));
        assertEquals(400, r.status, r.text());
        assertTrue(r.text().contains("<Code>InvalidRequest</Code>") && r.text().contains("sigv2.enabled"), r.text());
        TestResponse absent = call(g, SdkSigner.sign("GET", "/bkt/off", "", null, Body.SIGNED_HASH,
                java.time.Instant.now()));
        assertEquals(404, absent.status, absent.text());
    }
}
