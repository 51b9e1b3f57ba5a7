package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.s3.CuObjRoutesTest.random;

import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.client.ClientMemory;
import org.objrdma.s3.SdkSigner.Body;
import org.objrdma.s3.rdma.RdmaHeaders;
import org.objrdma.s3.rdma.RdmaSettings;

/**
 * Issue 24 findings 1 and 2: every {@code x-amz-*} header a request carries must be covered by its verified
 * signature (header auth and presigned URLs alike), else {@code 403 AccessDenied} before anything is acted on; an
 * Authorization header with a repeated or unknown component (and a presigned URL with a repeated auth parameter)
 * is malformed, so the one SignedHeaders list that was verified is the one every later check asks. Each refusal is
 * followed by a read proving nothing was copied, stored or dialed.
 */
class UnsignedHeadersTest {

    private static final byte[] SECRET_BYTES = "the signer's private object".getBytes(StandardCharsets.US_ASCII);
    private RdmaFixture f;

    @BeforeEach
    void start() throws Exception {
        f = new RdmaFixture(new RdmaSettings(1, 1 << 20), true);
        assertEquals(200, f.call("PUT", "/bkt", "", new byte[0]).status);
        assertEquals(200, f.call("PUT", "/bkt/private", "", SECRET_BYTES).status);
    }

    @AfterEach
    void stop() throws Exception {
        assertEquals(0, f.pool.stats().borrowed(), "no staging lent");
        assertEquals(0, f.cuObj.allocatedChannelCount(), "no facade channel left");
        f.close();
    }

    private static void assertNotSigned(TestResponse r, String header) {
        assertEquals(403, r.status, r.text());
        assertTrue(r.text().contains("<Code>AccessDenied</Code>"), r.text());
        assertTrue(r.text().contains("There were headers present in the request which were not signed"), r.text());
        assertTrue(r.text().contains(header), header + " named in " + r.text());
    }

    private void assertAbsent(String path) throws Exception {
        TestResponse r = f.call("GET", path, "", null);
        assertEquals(404, r.status, path + " must not exist: " + r.text());
    }

    /** The reported attack: an upload-only grant plus an unsigned copy source became a copy of a private object. */
    @Test
    void aPresignedPutWithAnUnsignedCopySourceIs403AndCopiesNothing() throws Exception {
        TestRequest url = SdkSigner.presign("PUT", "/bkt/upload", Instant.now(), Duration.ofMinutes(5));
        url.header("Content-Length", "0").header("x-amz-copy-source", "/bkt/private");
        assertNotSigned(f.call(url), "x-amz-copy-source");
        assertAbsent("/bkt/upload");
        // any case of the name is the same header
        TestRequest upper = SdkSigner.presign("PUT", "/bkt/upload", Instant.now(), Duration.ofMinutes(5));
        upper.header("X-Amz-Copy-Source", "bkt/private");
        assertNotSigned(f.call(upper), "x-amz-copy-source");
        assertAbsent("/bkt/upload");
        // the grant itself is good: the same URL without the added header uploads its body, and only that
        byte[] body = "uploaded through the grant".getBytes(StandardCharsets.US_ASCII);
        TestResponse plain = f.call(SdkSigner.presign("PUT", "/bkt/upload", Instant.now(), Duration.ofMinutes(5))
                .header("Content-Length", String.valueOf(body.length)).body(body));
        assertEquals(200, plain.status, plain.text());
        assertArrayEquals(body, f.call("GET", "/bkt/upload", "", null).bytes());
    }

    @Test
    void unsignedMetadataAndMetadataDirectiveAreRefusedAndStoreNothing() throws Exception {
        byte[] body = "body".getBytes(StandardCharsets.US_ASCII);
        // header auth, metadata added after signing
        TestRequest put = SdkSigner.sign("PUT", "/bkt/meta", "", body, Body.SIGNED_HASH, Instant.now());
        put.header("x-amz-meta-owner", "mallory");
        assertNotSigned(f.call(put), "x-amz-meta-owner");
        assertAbsent("/bkt/meta");
        // presigned, metadata beside the URL
        TestRequest url = SdkSigner.presign("PUT", "/bkt/meta", Instant.now(), Duration.ofMinutes(5))
                .header("Content-Length", String.valueOf(body.length)).body(body);
        url.header("x-amz-meta-owner", "mallory");
        assertNotSigned(f.call(url), "x-amz-meta-owner");
        assertAbsent("/bkt/meta");
        // a signed copy whose directive and new metadata were added after signing: no copy, old metadata untouched
        assertEquals(200, f.call("PUT", "/bkt/src", "", body, "x-amz-meta-color", "red").status);
        TestRequest copy = SdkSigner.sign("PUT", "/bkt/dst", "", new byte[0], Body.SIGNED_HASH, Instant.now(),
                "x-amz-copy-source", "/bkt/src");
        copy.header("x-amz-metadata-directive", "REPLACE");
        copy.header("x-amz-meta-color", "blue");
        TestResponse refused = f.call(copy);
        assertNotSigned(refused, "x-amz-metadata-directive");
        assertTrue(refused.text().contains("x-amz-meta-color"), refused.text());
        assertAbsent("/bkt/dst");
        assertEquals("red", f.call("HEAD", "/bkt/src", "", null).header("x-amz-meta-color"));
        // signed, the same headers are served
        TestResponse signed = f.call("PUT", "/bkt/dst", "", new byte[0], "x-amz-copy-source", "/bkt/src",
                "x-amz-metadata-directive", "REPLACE", "x-amz-meta-color", "blue");
        assertEquals(200, signed.status, signed.text());
        assertEquals("blue", f.call("HEAD", "/bkt/dst", "", null).header("x-amz-meta-color"));
    }

    @Test
    void aHeaderSignedPutWithACopySourceAddedAfterSigningIsRefused() throws Exception {
        TestRequest put = SdkSigner.sign("PUT", "/bkt/stolen", "", new byte[0], Body.SIGNED_HASH, Instant.now());
        put.header("x-amz-copy-source", "/bkt/private");
        assertNotSigned(f.call(put), "x-amz-copy-source");
        assertAbsent("/bkt/stolen");
        // and on UploadPart (UploadPartCopy): no part copied
        TestResponse created = f.call("POST", "/bkt/mp", "uploads", new byte[0]);
        assertEquals(200, created.status, created.text());
        String uploadId = created.text().replaceAll("(?s).*<UploadId>([^<]+)</UploadId>.*", "$1");
        TestRequest part = SdkSigner.sign("PUT", "/bkt/mp", "partNumber=1&uploadId=" + uploadId, new byte[0],
                Body.SIGNED_HASH, Instant.now());
        part.header("x-amz-copy-source", "/bkt/private");
        assertNotSigned(f.call(part), "x-amz-copy-source");
        TestResponse parts = f.call("GET", "/bkt/mp", "uploadId=" + uploadId, null);
        assertEquals(200, parts.status, parts.text());
        assertTrue(!parts.text().contains("<Part>"), "no part was copied: " + parts.text());
    }

    /**
     * Finding 2's reproduction: a first {@code SignedHeaders=} naming {@code x-amz-rdma-token}, a second (the one
     * signed) without it. The RDMA check read the first, the verifier the last, and the gateway dialed the address
     * the unsigned token named. Now the header is malformed: 400, nothing dialed, the client memory untouched.
     */
    @Test
    void aRepeatedSignedHeadersComponentIs400AndDialsNothing() throws Exception {
        byte[] data = random(4096, 24);
        assertEquals(200, f.call("PUT", "/bkt/obj", "", data).status);
        try (ClientMemory mem = f.memory(4096)) {
            String token = f.agent.descriptor(mem, 0, 4096, Op.GET).descriptor().format();
            TestRequest r = SdkSigner.sign("GET", "/bkt/obj", "", null, Body.UNSIGNED, Instant.now());
            String auth = r.header("Authorization");
            String signedList = auth.replaceAll(".*SignedHeaders=([^,]+),.*", "$1");
            r.removeHeader("Authorization");
            r.header("Authorization", auth.replace("SignedHeaders=", "SignedHeaders=" + signedList + ";"
                    + RdmaHeaders.TOKEN + ", SignedHeaders="));
            r.header(RdmaHeaders.TOKEN, token);
            TestResponse out = f.call(r);
            assertEquals(400, out.status, out.text());
            assertTrue(out.text().contains("<Code>AuthorizationHeaderMalformed</Code>"), out.text());
            assertTrue(out.text().contains("SignedHeaders appears more than once"), out.text());
            assertNull(out.header(RdmaHeaders.BYTES_TRANSFERRED), "no transfer");
            byte[] seen = mem.segment().asSlice(0, 4096).toArray(ValueLayout.JAVA_BYTE);
            assertArrayEquals(new byte[4096], seen, "nothing was written into the client memory");
        }
    }

    @Test
    void everyRepeatedOrUnknownAuthorizationComponentIsMalformed() throws Exception {
        TestRequest base = SdkSigner.sign("PUT", "/bkt/x", "", new byte[] {1}, Body.SIGNED_HASH, Instant.now());
        String auth = base.header("Authorization");
        String credential = auth.replaceAll(".*(Credential=[^,]+),.*", "$1");
        String signature = auth.replaceAll(".*(Signature=[0-9a-f]+).*", "$1");
        for (String forged : new String[] {auth + ", " + signature, auth.replace("Signature=", credential + ", Signature="),
                auth + ", Extra=1"}) {
            TestRequest r = SdkSigner.sign("PUT", "/bkt/x", "", new byte[] {1}, Body.SIGNED_HASH, Instant.now());
            r.removeHeader("Authorization");
            r.header("Authorization", forged);
            TestResponse out = f.call(r);
            assertEquals(400, out.status, forged + ": " + out.text());
            assertTrue(out.text().contains("<Code>AuthorizationHeaderMalformed</Code>"), out.text());
        }
        TestRequest two = SdkSigner.sign("PUT", "/bkt/x", "", new byte[] {1}, Body.SIGNED_HASH, Instant.now());
        two.header("Authorization", auth);
        TestResponse out = f.call(two);
        assertEquals(400, out.status, out.text());
        assertTrue(out.text().contains("more than one Authorization header"), out.text());
        // a presigned URL with a repeated auth parameter
        TestRequest url = SdkSigner.presign("GET", "/bkt/private", Instant.now(), Duration.ofMinutes(5));
        TestRequest repeated = new TestRequest("GET", url.rawPath(), url.rawQuery() + "&X-Amz-SignedHeaders=host");
        repeated.header("Host", url.header("Host"));
        TestResponse q = f.call(repeated);
        assertEquals(400, q.status, q.text());
        assertTrue(q.text().contains("<Code>AuthorizationQueryParametersError</Code>"), q.text());
        assertAbsent("/bkt/x");
    }
}
