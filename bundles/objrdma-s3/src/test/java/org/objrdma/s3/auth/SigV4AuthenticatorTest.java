package org.objrdma.s3.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.TestRequest;

/**
 * SigV4 against the example requests of the S3 documentation ("Signature Calculations for the Authorization
 * Header" and "Query String Auth"): the documented inputs must yield the documented signatures, and every
 * refusal carries its S3 code.
 */
class SigV4AuthenticatorTest {

    static final String AK = "AKIAIOSFODNN7EXAMPLE";
    static final String SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    static final Instant DOC_TIME = Instant.parse("2013-05-24T00:00:00Z");
    static final CredentialSource CREDS = k -> AK.equals(k) ? Optional.of(SECRET) : Optional.empty();

    static SigV4Authenticator at(Instant now) {
        return new SigV4Authenticator("us-east-1", Duration.ofMinutes(15), Clock.fixed(now, ZoneOffset.UTC), CREDS);
    }

    /** The documentation's GET Object with a Range header. */
    static TestRequest docGetObject(String signature) {
        return new TestRequest("GET", "/test.txt", "")
                .header("Host", "examplebucket.s3.amazonaws.com")
                .header("Range", "bytes=0-9")
                .header("x-amz-content-sha256", SigV4.EMPTY_SHA256)
                .header("x-amz-date", "20130524T000000Z")
                .header("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                        + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=" + signature);
    }

    static final String DOC_GET_SIGNATURE = "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41";
    static final String DOC_PRESIGN_SIGNATURE = "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404";

    static String docPresignQuery(String signature) {
        return "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
                + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=" + signature;
    }

    private static S3Exception refused(SigV4Authenticator a, TestRequest r) {
        return assertThrows(S3Exception.class, () -> a.authenticate(r, QueryString.parse(r.rawQuery())));
    }

    @Test
    void documentedGetObjectVerifies() throws Exception {
        TestRequest r = docGetObject(DOC_GET_SIGNATURE);
        Authentication auth = at(DOC_TIME.plusSeconds(60)).authenticate(r, QueryString.parse(""));
        assertEquals(AK, auth.accessKeyId());
        assertEquals(PayloadMode.SIGNED_HASH, auth.payload());
        assertEquals(SigV4.EMPTY_SHA256, auth.payloadSha256());
    }

    @Test
    void documentedPresignedGetVerifiesUntilExpiry() throws Exception {
        TestRequest r = new TestRequest("GET", "/test.txt", docPresignQuery(DOC_PRESIGN_SIGNATURE))
                .header("Host", "examplebucket.s3.amazonaws.com");
        Authentication auth = at(DOC_TIME.plusSeconds(86_400)).authenticate(r, QueryString.parse(r.rawQuery()));
        assertEquals(PayloadMode.UNSIGNED, auth.payload());
        S3Exception e = refused(at(DOC_TIME.plusSeconds(86_401)), r);
        assertEquals("AccessDenied", e.code());
        assertTrue(e.getMessage().contains("expired"), e.getMessage());
        assertEquals(403, e.status());
    }

    @Test
    void presignLongerThanAWeekIsRefused() {
        TestRequest r = new TestRequest("GET", "/test.txt",
                docPresignQuery(DOC_PRESIGN_SIGNATURE).replace("X-Amz-Expires=86400", "X-Amz-Expires=604801"))
                .header("Host", "examplebucket.s3.amazonaws.com");
        assertEquals("AuthorizationQueryParametersError", refused(at(DOC_TIME), r).code());
    }

    @Test
    void wrongSignatureIsSignatureDoesNotMatch() {
        String bad = DOC_GET_SIGNATURE.replace('f', 'e');
        S3Exception e = refused(at(DOC_TIME), docGetObject(bad));
        assertEquals("SignatureDoesNotMatch", e.code());
        assertEquals(403, e.status());
    }

    @Test
    void tamperedSignedHeaderIsSignatureDoesNotMatch() {
        TestRequest r = docGetObject(DOC_GET_SIGNATURE).removeHeader("Range").header("Range", "bytes=0-10");
        assertEquals("SignatureDoesNotMatch", refused(at(DOC_TIME), r).code());
    }

    @Test
    void skewedClockIsRequestTimeTooSkewed() {
        S3Exception e = refused(at(DOC_TIME.plus(Duration.ofMinutes(16))), docGetObject(DOC_GET_SIGNATURE));
        assertEquals("RequestTimeTooSkewed", e.code());
        assertEquals(403, e.status());
        // within the 15 minutes both ways it passes
        assertEquals(AK, assertDoesNotThrow(at(DOC_TIME.minus(Duration.ofMinutes(14))), docGetObject(DOC_GET_SIGNATURE)));
    }

    private static String assertDoesNotThrow(SigV4Authenticator a, TestRequest r) {
        try {
            return a.authenticate(r, QueryString.parse(r.rawQuery())).accessKeyId();
        } catch (S3Exception e) {
            throw new AssertionError(e.code() + ": " + e.getMessage(), e);
        }
    }

    @Test
    void unknownAccessKeyIsInvalidAccessKeyId() {
        TestRequest r = docGetObject(DOC_GET_SIGNATURE);
        SigV4Authenticator a = new SigV4Authenticator("us-east-1", Duration.ofMinutes(15),
                Clock.fixed(DOC_TIME, ZoneOffset.UTC), k -> Optional.empty());
        assertEquals("InvalidAccessKeyId", assertThrows(S3Exception.class,
                () -> a.authenticate(r, QueryString.parse(""))).code());
    }

    @Test
    void wrongRegionIsAuthorizationHeaderMalformed() {
        SigV4Authenticator a = new SigV4Authenticator("eu-west-1", Duration.ofMinutes(15),
                Clock.fixed(DOC_TIME, ZoneOffset.UTC), CREDS);
        S3Exception e = refused(a, docGetObject(DOC_GET_SIGNATURE));
        assertEquals("AuthorizationHeaderMalformed", e.code());
        assertTrue(e.getMessage().contains("eu-west-1"));
    }

    @Test
    void anonymousAndSigV2AreRefused() {
        TestRequest anonymous = new TestRequest("GET", "/", "").header("Host", "localhost");
        S3Exception a = refused(at(DOC_TIME), anonymous);
        assertEquals("AccessDenied", a.code());
        assertEquals(403, a.status());
        TestRequest v2 = new TestRequest("GET", "/", "").header("Host", "localhost")
                .header("Authorization", "AWS AKIAIOSFODNN7EXAMPLE:frJIUN8DYpKDtOLCwo//yllqDzg=");
        S3Exception b = refused(at(DOC_TIME), v2);
        assertEquals("InvalidRequest", b.code());
        assertTrue(b.getMessage().contains("AWS4-HMAC-SHA256"));
        TestRequest v2query = new TestRequest("GET", "/b/k", "AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Expires=1&Signature=x")
                .header("Host", "localhost");
        assertEquals("InvalidRequest", refused(at(DOC_TIME), v2query).code());
    }

    @Test
    void missingContentSha256ExplainsTheCurlWorkaround() {
        TestRequest r = docGetObject(DOC_GET_SIGNATURE).removeHeader("x-amz-content-sha256");
        S3Exception e = refused(at(DOC_TIME), r);
        assertEquals("InvalidRequest", e.code());
        assertTrue(e.getMessage().contains("UNSIGNED-PAYLOAD"));
    }

    @Test
    void canonicalUriEncodesOnceAndKeepsDoubleSlashes() throws Exception {
        assertEquals("/b/a%2Fb//c%20d~", SigV4.canonicalUri("/b/a%2Fb//c%20d%7E"));
        assertEquals("/b/%2B%21", SigV4.canonicalUri("/b/+!"));
    }

    @Test
    void canonicalQuerySortsAndEncodes() throws Exception {
        assertEquals("a=&b=2&prefix=x%2Fy%20z&uploads=",
                SigV4.canonicalQuery(QueryString.parse("uploads&prefix=x/y%20z&b=2&a"), null));
    }

    @Test
    void contentTypeRespelledByJettysHeaderCacheStillVerifies() throws Exception {
        Instant now = Instant.now();
        TestRequest r = org.objrdma.s3.SdkSigner.sign("PUT", "/b/k", "", new byte[] {1},
                org.objrdma.s3.SdkSigner.Body.SIGNED_HASH, now, "Content-Type", "text/plain; charset=utf-8");
        // what Jetty 9.4 hands the servlet for that header
        r.removeHeader("Content-Type").header("Content-Type", "text/plain; charset=UTF-8");
        assertEquals(AK, at(now).authenticate(r, QueryString.parse("")).accessKeyId());
        // anything else about the value still breaks the signature
        r.removeHeader("Content-Type").header("Content-Type", "text/html; charset=utf-8");
        assertEquals("SignatureDoesNotMatch", refused(at(now), r).code());
    }
}
