package org.objrdma.itests.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.presigner.model.PresignedPutObjectRequest;

/**
 * Issue 24 findings 1, 2 and 11 over real sockets against the running distribution: an {@code x-amz-*} header
 * the signature does not cover is {@code 403 AccessDenied} and nothing is copied or stored (a presigned PUT plus an
 * unsigned copy source, a header-signed PUT with metadata or a copy source added after signing); an Authorization
 * header with a repeated {@code SignedHeaders=} is {@code 400 AuthorizationHeaderMalformed}; and what happens to
 * keys with {@code ..} segments, raw and percent-encoded, is exactly what the README says. objrdma only: these
 * assert S3's refusals, which s3proxy (the reference server of the other suites) does not make.
 */
public abstract class UnsignedHeadersConformance extends S3ConformanceBase {

    private static final String NOT_SIGNED = "There were headers present in the request which were not signed";

    private static void assertNotSigned(RawS3.Response r, String header) {
        assertEquals(403, r.status(), r::toString);
        assertEquals("AccessDenied", r.code(), r::toString);
        assertTrue(r.text().contains(NOT_SIGNED) && r.text().contains(header), r::toString);
    }

    private List<String> keys(String bucket) {
        return SdkOperationsConformance.keys(s3(ClientMode.DEFAULTS).listObjectsV2(b -> b.bucket(bucket)).contents());
    }

    @Test
    void aPresignedPutWithAnUnsignedCopySourceCopiesNothing() throws Exception {
        S3Client s3 = s3(ClientMode.DEFAULTS);
        String bucket = newBucket("unsigned");
        byte[] secret = Payloads.random(2048, 24);
        s3.putObject(b -> b.bucket(bucket).key("private"), RequestBody.fromBytes(secret));
        PresignedPutObjectRequest put = presigner().presignPutObject(p -> p.signatureDuration(Duration.ofMinutes(5))
                .putObjectRequest(o -> o.bucket(bucket).key("upload")));
        Map<String, String> headers = new HashMap<>();
        put.signedHeaders().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("host")) {
                headers.put(name, String.join(",", values));
            }
        });
        Map<String, String> copy = new HashMap<>(headers);
        copy.put("x-amz-copy-source", "/" + bucket + "/private");
        assertNotSigned(raw().send("PUT", put.url().toURI(), copy, new byte[0]), "x-amz-copy-source");
        Map<String, String> meta = new HashMap<>(headers);
        meta.put("X-Amz-Meta-Owner", "mallory");
        assertNotSigned(raw().send("PUT", put.url().toURI(), meta, new byte[] {1}), "x-amz-meta-owner");
        assertEquals(List.of("private"), keys(bucket), "nothing copied, nothing stored");
        // the grant itself works: the very URL without the added headers stores its body
        byte[] upload = Payloads.random(1000, 25);
        RawS3.Response stored = raw().send("PUT", put.url().toURI(), headers, upload);
        assertEquals(200, stored.status(), stored::toString);
        assertArrayEquals(upload, s3.getObjectAsBytes(b -> b.bucket(bucket).key("upload")).asByteArray());
    }

    @Test
    void headersAddedAfterHeaderSigningAreRefused() throws Exception {
        String bucket = newBucket("unsigned");
        s3(ClientMode.DEFAULTS).putObject(b -> b.bucket(bucket).key("src").metadata(Map.of("color", "red")),
                RequestBody.fromBytes(new byte[] {7}));
        URI dst = raw().uri("/" + bucket + "/dst", null);
        for (Map<String, String> added : List.of(Map.of("x-amz-copy-source", "/" + bucket + "/src"),
                Map.of("x-amz-meta-color", "blue"), Map.of("x-amz-metadata-directive", "REPLACE"))) {
            SigV4.Signed s = raw().signer().sign("PUT", dst, Map.of(), SigV4.UNSIGNED_PAYLOAD, Instant.now());
            Map<String, String> sent = new LinkedHashMap<>(s.headers());
            sent.putAll(added);
            assertNotSigned(raw().send("PUT", dst, sent, new byte[0]), added.keySet().iterator().next());
        }
        assertEquals(List.of("src"), keys(bucket));
        // signed, a copy source is served
        RawS3.Response copied = raw().signed("PUT", "/" + bucket + "/dst", null,
                RawS3.headers("x-amz-copy-source", "/" + bucket + "/src"), new byte[0]);
        assertEquals(200, copied.status(), copied::toString);
        assertEquals(List.of("dst", "src"), keys(bucket));
    }

    @Test
    void aRepeatedSignedHeadersComponentIsMalformed() throws Exception {
        String bucket = newBucket("unsigned");
        URI uri = raw().uri("/" + bucket + "/dup", null);
        SigV4.Signed s = raw().signer().sign("PUT", uri, Map.of(), SigV4.UNSIGNED_PAYLOAD, Instant.now());
        Map<String, String> sent = new LinkedHashMap<>(s.headers());
        String auth = sent.get("Authorization");
        String list = auth.replaceAll(".*SignedHeaders=([^,]+),.*", "$1");
        sent.put("Authorization", auth.replace("SignedHeaders=", "SignedHeaders=" + list
                + ";x-amz-rdma-token, SignedHeaders="));
        sent.put("x-amz-rdma-token", "0000000000000000");
        RawS3.Response r = raw().send("PUT", uri, sent, new byte[0]);
        assertEquals(400, r.status(), r::toString);
        assertEquals("AuthorizationHeaderMalformed", r.code(), r::toString);
        assertEquals(List.of(), keys(bucket));
    }

    /**
     * Finding 11, what the README says: a key's {@code ..} segments reach the gateway verbatim (stored and listed
     * as the key, raw or percent-encoded as {@code %2E%2E}) while the path {@code /bucket/key} does not climb
     * above {@code /}; one that climbs above it is refused by Jetty before the gateway sees it, raw or encoded
     * (Jetty decodes {@code %2E} and {@code %2F} before resolving dot segments), with Jetty's own
     * {@code 400 Bad Message} HTML page, and nothing is stored.
     */
    @Test
    void dotDotKeysAreStoredUnlessThePathClimbsAboveTheRoot() throws Exception {
        String bucket = newBucket("dots");
        Map<String, String> stored = new LinkedHashMap<>();
        stored.put("/" + bucket + "/../raw", "../raw");
        stored.put("/" + bucket + "/%2E%2E/encoded", "../encoded");
        stored.put("/" + bucket + "/a/../../two", "a/../../two");
        stored.put("/" + bucket + "/a/%2e%2e/b", "a/../b");
        for (Map.Entry<String, String> e : stored.entrySet()) {
            byte[] body = e.getValue().getBytes(java.nio.charset.StandardCharsets.UTF_8);
            RawS3.Response put = signedAs(e.getKey(), e.getValue(), body);
            assertEquals(200, put.status(), () -> e.getKey() + ": " + put);
            assertArrayEquals(body, s3(ClientMode.DEFAULTS).getObjectAsBytes(b -> b.bucket(bucket).key(e.getValue()))
                    .asByteArray(), e.getKey());
        }
        for (String refused : List.of("/" + bucket + "/../../raw", "/" + bucket + "/%2E%2E/%2E%2E/encoded",
                "/" + bucket + "/..%2F..%2Fslashes", "/" + bucket + "/a/../../../deep")) {
            RawS3.Response r = raw().signed("PUT", refused, null, Map.of(), new byte[] {1});
            assertEquals(400, r.status(), () -> refused + ": " + r);
            assertTrue(r.text().contains("Bad Message 400"), () -> refused + ": " + r);
            assertFalse(r.text().contains("<Error>"), "Jetty answers, not the gateway");
        }
        assertEquals(List.of("../encoded", "../raw", "a/../../two", "a/../b"), keys(bucket));
    }

    /** PUT to {@code sentPath}, signed over the path as S3 canonicalizes it: {@code /bucket/} and the key encoded. */
    private RawS3.Response signedAs(String sentPath, String key, byte[] body) throws Exception {
        String bucket = sentPath.substring(1, sentPath.indexOf('/', 1));
        URI canonical = raw().uri("/" + bucket + "/" + key, null);
        SigV4.Signed s = raw().signer().sign("PUT", canonical, Map.of(), SigV4.hex(SigV4.sha256(body)), Instant.now());
        return raw().send("PUT", raw().uri(sentPath, null), s.headers(), body);
    }
}
