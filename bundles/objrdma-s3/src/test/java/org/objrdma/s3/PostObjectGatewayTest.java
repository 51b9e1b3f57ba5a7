package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.SdkSigner.Body;
import org.objrdma.s3.auth.SigV2;
import org.objrdma.s3.auth.SigV4;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * Browser POST uploads through the whole gateway in-process, for what a stock client never sends: forms read one
 * byte at a time (a boundary split across reads), a preamble, broken framing, a form without its file, fields over
 * the size limit, a policy signed by a user who does not own the bucket, SigV2 forms with V2 turned off, and
 * malformed policy documents. Real clients drive the same route in the itests' {@code Boto3Conformance}.
 */
class PostObjectGatewayTest {

    private static final String OTHER_AK = "AKIAOTHERUSER0000001";
    private static final String OTHER_SECRET = "otherSecret000000000000000000000000000001";

    private EmbeddedStore store;

    @BeforeEach
    void start() {
        store = EmbeddedStores.inMemory(Map.of(SdkSigner.AK, SdkSigner.SECRET, OTHER_AK, OTHER_SECRET));
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private S3Gateway gateway(boolean acceptSigV2) throws IOException {
        S3Gateway g = new S3Gateway(store, S3Settings.DEFAULTS.withSigV2(acceptSigV2), Clock.systemUTC());
        assertEquals(200, call(g, SdkSigner.sign("PUT", "/bkt", "", new byte[0], Body.SIGNED_HASH, Instant.now())).status);
        return g;
    }

    private static TestResponse call(S3Gateway gateway, TestRequest r) throws IOException {
        TestResponse out = new TestResponse();
        gateway.handle(r, out);
        return out;
    }

    private static String policy(String conditions, Instant expiration) {
        String json = "{\"expiration\": \"" + DateTimeFormatter.ISO_INSTANT.format(expiration.atOffset(ZoneOffset.UTC))
                + "\", \"conditions\": [" + conditions + "]}";
        return Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    }

    /** Fields signed with V2 by {@code ak}: the policy, AWSAccessKeyId and signature first. */
    private static Map<String, String> v2(String policy, String ak, String secret) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put("AWSAccessKeyId", ak);
        f.put("policy", policy);
        f.put("signature", SigV2.signature(secret, policy));
        return f;
    }

    /** Fields signed with SigV4 for us-east-1 today. */
    private static Map<String, String> v4(String policy) {
        String date = DateTimeFormatter.ofPattern("yyyyMMdd").format(Instant.now().atOffset(ZoneOffset.UTC));
        Map<String, String> f = new LinkedHashMap<>();
        f.put("x-amz-algorithm", "AWS4-HMAC-SHA256");
        f.put("x-amz-credential", SdkSigner.AK + "/" + date + "/us-east-1/s3/aws4_request");
        f.put("x-amz-date", date + "T000000Z");
        f.put("policy", policy);
        f.put("x-amz-signature", SigV4.signature(SigV4.signingKey(SdkSigner.SECRET, date, "us-east-1", "s3"), policy));
        return f;
    }

    private static byte[] form(String boundary, String preamble, Map<String, String> fields, byte[] file) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(preamble.getBytes(StandardCharsets.UTF_8));
        fields.forEach((k, v) -> out.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + k
                + "\"\r\n\r\n" + v + "\r\n").getBytes(StandardCharsets.UTF_8)));
        if (file != null) {
            out.writeBytes(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"f.bin\""
                    + "\r\nContent-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.UTF_8));
            out.writeBytes(file);
            out.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        out.writeBytes(("--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    private static TestRequest post(String boundary, byte[] body, boolean oneByteReads) {
        InputStream in = new java.io.ByteArrayInputStream(body);
        if (oneByteReads) {
            in = new FilterInputStream(in) {
                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    return super.read(b, off, Math.min(len, 1));
                }
            };
        }
        return new TestRequest("POST", "/bkt", "").header("Host", "127.0.0.1")
                .header("Content-Type", "multipart/form-data; boundary=" + boundary).body(in);
    }

    private static String code(TestResponse r) {
        String t = r.text();
        int s = t.indexOf("<Code>");
        return s < 0 ? "" : t.substring(s + 6, t.indexOf("</Code>"));
    }

    private static String conditions(String extra) {
        return "{\"bucket\": \"bkt\"}, [\"starts-with\", \"$key\", \"up/\"]" + extra;
    }

    @Test
    void aFileWhoseBytesLookLikeTheBoundaryStartArrivesByteExactInOneByteReads() throws Exception {
        S3Gateway g = gateway(true);
        String boundary = "XyZ123";
        // the file holds near-misses of the delimiter: CRLF, "--", "--XyZ12", "\r\n--XyZ12"
        byte[] file = "a\r\n--XyZ12\r\n-\r\n--XyZ1\r--XyZ123x".getBytes(StandardCharsets.ISO_8859_1);
        Map<String, String> f = v2(policy(conditions(""), Instant.now().plusSeconds(600)), SdkSigner.AK, SdkSigner.SECRET);
        f.put("key", "up/${filename}");
        for (boolean oneByte : new boolean[] {false, true}) {
            TestResponse r = call(g, post(boundary, form(boundary, "a preamble\r\n", f, file), oneByte));
            assertEquals(204, r.status, r::text);
            TestResponse got = call(g, SdkSigner.sign("GET", "/bkt/up/f.bin", "", new byte[0], Body.SIGNED_HASH,
                    Instant.now()));
            assertEquals(new String(file, StandardCharsets.ISO_8859_1),
                    new String(got.bytes(), StandardCharsets.ISO_8859_1));
        }
    }

    @Test
    void sigV4FormIsServedAndItsSignatureChecked() throws Exception {
        S3Gateway g = gateway(true);
        String p = policy(conditions(""), Instant.now().plusSeconds(600));
        Map<String, String> f = v4(p);
        f.put("key", "up/v4");
        assertEquals(204, call(g, post("b", form("b", "", f, new byte[] {1, 2}), false)).status);
        f.put("x-amz-signature", "0".repeat(64));
        f.put("key", "up/v4-forged");
        TestResponse r = call(g, post("b", form("b", "", f, new byte[] {1}), false));
        assertEquals(403, r.status);
        assertEquals("SignatureDoesNotMatch", code(r));
        assertEquals(404, call(g, SdkSigner.sign("HEAD", "/bkt/up/v4-forged", "", new byte[0], Body.SIGNED_HASH,
                Instant.now())).status);
    }

    @Test
    void malformedFormsAndPoliciesAreRefusedWithS3sErrors() throws Exception {
        S3Gateway g = gateway(true);
        String good = policy(conditions(""), Instant.now().plusSeconds(600));
        Map<String, String> f = v2(good, SdkSigner.AK, SdkSigner.SECRET);
        f.put("key", "up/x");
        // the body ends inside the file: no closing boundary
        byte[] truncated = form("b", "", f, "data".getBytes(StandardCharsets.UTF_8));
        truncated = java.util.Arrays.copyOf(truncated, truncated.length - 12);
        TestResponse r = call(g, post("b", truncated, false));
        assertEquals(400, r.status, r::text);
        assertEquals("IncompleteBody", code(r));
        // no file part
        r = call(g, post("b", form("b", "", f, null), false));
        assertEquals("InvalidArgument", code(r), r::text);
        // a part without Content-Disposition name
        r = call(g, post("b", "--b\r\nX: y\r\n\r\nv\r\n--b--\r\n".getBytes(StandardCharsets.UTF_8), false));
        assertEquals("MalformedPOSTRequest", code(r), r::text);
        // fields over the 20 KiB limit
        Map<String, String> big = new LinkedHashMap<>(f);
        big.put("x-ignore-padding", "p".repeat(21 * 1024));
        r = call(g, post("b", form("b", "", big, new byte[] {1}), false));
        assertEquals("MaxMessageLengthExceeded", code(r), r::text);
        // many parts with empty values: their names count against the same limit
        StringBuilder parts = new StringBuilder();
        for (int i = 0; i < 3000; i++) {
            parts.append("--b\r\nContent-Disposition: form-data; name=\"x-ignore-").append(i).append("\"\r\n\r\n\r\n");
        }
        parts.append("--b--\r\n");
        r = call(g, post("b", parts.toString().getBytes(StandardCharsets.UTF_8), false));
        assertEquals("MaxMessageLengthExceeded", code(r), r::text);
        // policies that do not parse or lack a member: InvalidPolicyDocument
        for (String json : new String[] {"{\"conditions\": []}", "{\"expiration\": \"tomorrow\", \"conditions\": []}",
                "{\"expiration\": \"2099-01-01T00:00:00Z\"}", "[1, 2]", "{\"expiration\": \"2099-01-01T00:00:00Z\", "
                        + "\"conditions\": [[\"content-length-range\", -1, 5]]}", "{\"expiration\": \"2099-01-01T00:00:00Z\""}) {
            String p = Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8));
            Map<String, String> bad = v2(p, SdkSigner.AK, SdkSigner.SECRET);
            bad.put("key", "up/x");
            r = call(g, post("b", form("b", "", bad, new byte[] {1}), false));
            assertEquals(400, r.status, json);
            assertEquals("InvalidPolicyDocument", code(r), json);
        }
        assertEquals(404, call(g, SdkSigner.sign("HEAD", "/bkt/up/x", "", new byte[0], Body.SIGNED_HASH,
                Instant.now())).status);
    }

    @Test
    void aPolicySignedByAUserWhoDoesNotOwnTheBucketStoresNothing() throws Exception {
        S3Gateway g = gateway(true);
        Map<String, String> f = v2(policy(conditions(""), Instant.now().plusSeconds(600)), OTHER_AK, OTHER_SECRET);
        f.put("key", "up/intruder");
        TestResponse r = call(g, post("b", form("b", "", f, new byte[] {1}), false));
        assertEquals(403, r.status, r::text);
        assertEquals("AccessDenied", code(r));
        assertEquals(404, call(g, SdkSigner.sign("HEAD", "/bkt/up/intruder", "", new byte[0], Body.SIGNED_HASH,
                Instant.now())).status);
    }

    @Test
    void sigV2FormsAreRefusedWhenV2IsOffAndPublicAclsAreBlockedByDefault() throws Exception {
        Map<String, String> f = v2(policy(conditions(", {\"acl\": \"public-read\"}"), Instant.now().plusSeconds(600)),
                SdkSigner.AK, SdkSigner.SECRET);
        f.put("key", "up/v2");
        f.put("acl", "public-read");
        TestResponse r = call(gateway(false), post("b", form("b", "", f, new byte[] {1}), false));
        assertEquals("InvalidRequest", code(r), r::text);
        r = call(gateway(true), post("b", form("b", "", f, new byte[] {1}), false));
        // public.access.enabled is off by default: a public ACL is S3's Block Public Access refusal
        assertEquals(403, r.status, r::text);
        assertEquals("AccessDenied", code(r), r::text);
        assertTrue(r.text().contains("public-read"), r::text);
        assertEquals(404, call(gateway(true), SdkSigner.sign("HEAD", "/bkt/up/v2", "", new byte[0], Body.SIGNED_HASH,
                Instant.now())).status, "nothing stored");
    }
}
