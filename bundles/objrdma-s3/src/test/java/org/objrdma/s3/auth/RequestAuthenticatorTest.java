package org.objrdma.s3.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.TestRequest;

/** Which scheme a request gets: SigV4 always, SigV2 unless turned off, and never SigV2 on the RDMA routes. */
class RequestAuthenticatorTest {

    private static final String DATE = "Tue, 27 Mar 2007 19:36:42 +0000";

    private static RequestAuthenticator authenticator(boolean sigV2) {
        return new RequestAuthenticator("us-east-1", Duration.ofMinutes(15), sigV2, Clock.fixed(
                ZonedDateTime.parse(DATE, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant(), ZoneOffset.UTC),
                SigV4AuthenticatorTest.CREDS);
    }

    /** The guide's GET example, path style. */
    private static TestRequest v2Get() {
        return new TestRequest("GET", "/johnsmith/photos/puppy.jpg", "").header("Date", DATE)
                .header("Authorization", "AWS " + SigV4AuthenticatorTest.AK + ":bWq2s1WEIj+Ydj0vQ697zp+IXMU=");
    }

    private static S3Exception refused(RequestAuthenticator a, TestRequest r, String bucket) {
        return assertThrows(S3Exception.class, () -> a.authenticate(r, QueryString.parse(r.rawQuery()), bucket, false));
    }

    @Test
    void sigV2IsAcceptedByDefault() throws Exception {
        TestRequest r = v2Get();
        assertEquals(SignatureVersion.V2,
                authenticator(true).authenticate(r, QueryString.parse(""), "johnsmith", false).version());
    }

    @Test
    void turnedOffItIsRefusedWithTheSettingNamed() {
        for (TestRequest r : new TestRequest[] {v2Get(), new TestRequest("GET", "/johnsmith/photos/puppy.jpg",
                "AWSAccessKeyId=" + SigV4AuthenticatorTest.AK + "&Signature=NpgCjnDzrM%2BWFzoENXmpNDUsSn8%3D&Expires=1175139620")}) {
            S3Exception e = refused(authenticator(false), r, "johnsmith");
            assertEquals("InvalidRequest", e.code());
            assertEquals(400, e.status());
            assertTrue(e.getMessage().contains("sigv2.enabled") && e.getMessage().contains("AWS4-HMAC-SHA256"),
                    e.getMessage());
        }
    }

    @Test
    void theRdmaRoutesRequireSigV4() {
        TestRequest cuObject = v2Get().header("x-amz-rdma-token", "00");
        S3Exception e = refused(authenticator(true), cuObject, "johnsmith");
        assertEquals("InvalidRequest", e.code());
        assertTrue(e.getMessage().contains("RDMA"), e.getMessage());
        TestRequest rc = new TestRequest("POST", "/.hipobj-rc/prepare", "").header("Date", DATE)
                .header("Authorization", "AWS " + SigV4AuthenticatorTest.AK + ":bWq2s1WEIj+Ydj0vQ697zp+IXMU=");
        assertEquals("InvalidRequest", refused(authenticator(true), rc, ".hipobj-rc").code());
    }

    @Test
    void otherRequestsGoToSigV4() {
        TestRequest anonymous = new TestRequest("GET", "/", "");
        assertEquals("AccessDenied", refused(authenticator(true), anonymous, null).code());
        TestRequest v4Garbage = new TestRequest("GET", "/", "").header("Authorization", "AWS4-HMAC-SHA256 nonsense");
        assertEquals("AuthorizationHeaderMalformed", refused(authenticator(true), v4Garbage, null).code());
    }
}
