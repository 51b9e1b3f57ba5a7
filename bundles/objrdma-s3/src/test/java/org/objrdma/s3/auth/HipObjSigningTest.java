package org.objrdma.s3.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.TestRequest;

/**
 * hipObject's reference client signs its control POSTs with credential scope service {@code hipobj}, every header
 * it sends (host, x-amz-date, the x-amz-rdma-* ones) and the SHA-256 of the empty body, and sends no
 * {@code x-amz-content-sha256}: the control routes take that, still verified with the principal's secret; every
 * other route keeps requiring service {@code s3} and the header. The signer here is written from that description,
 * not from the gateway's SigV4 code.
 */
class HipObjSigningTest {

    private static final String AK = SigV4AuthenticatorTest.AK;
    private static final String SECRET = SigV4AuthenticatorTest.SECRET;
    private static final Instant NOW = Instant.parse("2026-12-03T14:00:00Z");
    private static final String AMZ_DATE = "20261203T140000Z";
    private static final String EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    private static RequestAuthenticator gateway() {
        return new RequestAuthenticator("us-east-1", Duration.ofMinutes(15), false, Clock.fixed(NOW, ZoneOffset.UTC),
                SigV4AuthenticatorTest.CREDS);
    }

    /** The request as the reference client writes it: headers sorted, all signed, no content hash header. */
    private static TestRequest signed(String path, String service, String secret, Map<String, String> extra) throws Exception {
        Map<String, String> headers = new TreeMap<>();
        headers.put("host", "127.0.0.1");
        headers.put("x-amz-date", AMZ_DATE);
        headers.put("x-amz-rdma-protocol", "hipobj-rc-v2");
        headers.put("x-amz-rdma-session", "0123456789abcdef0123456789abcdef");
        headers.putAll(extra);
        StringBuilder canonicalHeaders = new StringBuilder();
        headers.forEach((k, v) -> canonicalHeaders.append(k).append(':').append(v).append('\n'));
        String signedList = String.join(";", headers.keySet());
        String canonical = "POST\n" + path + "\n\n" + canonicalHeaders + "\n" + signedList + "\n" + EMPTY;
        String scope = AMZ_DATE.substring(0, 8) + "/us-east-1/" + service + "/aws4_request";
        String toSign = "AWS4-HMAC-SHA256\n" + AMZ_DATE + "\n" + scope + "\n" + sha256(canonical);
        byte[] k = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), AMZ_DATE.substring(0, 8));
        k = hmac(k, "us-east-1");
        k = hmac(k, service);
        k = hmac(k, "aws4_request");
        String signature = HexFormat.of().formatHex(hmac(k, toSign));
        TestRequest r = new TestRequest("POST", path, "");
        headers.forEach(r::header);
        return r.header("content-length", "0").header("Authorization", "AWS4-HMAC-SHA256 Credential=" + AK + "/" + scope
                + ", SignedHeaders=" + signedList + ", Signature=" + signature);
    }

    private static String sha256(String s) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8)));
    }

    private static byte[] hmac(byte[] key, String data) throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    }

    private static Authentication authenticate(TestRequest r, String bucket) throws S3Exception {
        return gateway().authenticate(r, QueryString.parse(""), bucket, false);
    }

    @Test
    void theControlRoutesTakeServiceHipobjWithoutAContentHash() throws Exception {
        for (String route : new String[] {"prepare", "ready", "cancel"}) {
            Authentication a = authenticate(signed("/.hipobj-rc/" + route, "hipobj", SECRET, Map.of()), ".hipobj-rc");
            assertEquals(AK, a.accessKeyId());
            assertEquals(PayloadMode.SIGNED_HASH, a.payload());
        }
        // the S3 service name works there too
        assertEquals(AK, authenticate(signed("/.hipobj-rc/ready", "s3", SECRET, Map.of()), ".hipobj-rc").accessKeyId());
    }

    @Test
    void theSignatureIsStillVerifiedWithThePrincipalsSecret() throws Exception {
        S3Exception e = assertThrows(S3Exception.class, () -> authenticate(
                signed("/.hipobj-rc/ready", "hipobj", "not-the-secret", Map.of()), ".hipobj-rc"));
        assertEquals("SignatureDoesNotMatch", e.code());
        // a header changed after signing
        TestRequest tampered = signed("/.hipobj-rc/ready", "hipobj", SECRET, Map.of("x-amz-rdma-cookie", "00000001"));
        tampered.removeHeader("x-amz-rdma-cookie").header("x-amz-rdma-cookie", "00000002");
        assertEquals("SignatureDoesNotMatch", assertThrows(S3Exception.class,
                () -> authenticate(tampered, ".hipobj-rc")).code());
    }

    @Test
    void plainS3RoutesKeepRequiringServiceS3AndTheHeader() throws Exception {
        TestRequest plain = signed("/bkt/key", "hipobj", SECRET, Map.of());
        S3Exception e = assertThrows(S3Exception.class, () -> authenticate(plain, "bkt"));
        assertEquals("AuthorizationHeaderMalformed", e.code());
        assertTrue(e.getMessage().contains("must be s3"), e.getMessage());
        TestRequest noHash = signed("/bkt/key", "s3", SECRET, Map.of());
        S3Exception missing = assertThrows(S3Exception.class, () -> authenticate(noHash, "bkt"));
        assertEquals("InvalidRequest", missing.code());
        assertTrue(missing.getMessage().contains("x-amz-content-sha256"), missing.getMessage());
    }

    @Test
    void aControlPostWithABodyButNoContentHashIsRefused() throws Exception {
        TestRequest withBody = signed("/.hipobj-rc/prepare", "hipobj", SECRET, Map.of());
        withBody.removeHeader("content-length").header("content-length", "5").body("hello".getBytes(StandardCharsets.UTF_8));
        S3Exception e = assertThrows(S3Exception.class, () -> authenticate(withBody, ".hipobj-rc"));
        assertEquals("InvalidRequest", e.code());
        assertTrue(e.getMessage().contains("body-less"), e.getMessage());
        TestRequest chunked = signed("/.hipobj-rc/prepare", "hipobj", SECRET, Map.of());
        chunked.removeHeader("content-length").header("Transfer-Encoding", "chunked");
        assertEquals("InvalidRequest", assertThrows(S3Exception.class, () -> authenticate(chunked, ".hipobj-rc")).code());
    }
}
