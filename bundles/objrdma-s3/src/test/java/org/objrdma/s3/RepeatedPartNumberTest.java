package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.SdkSigner.Body;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * CompleteMultipartUpload naming one part number twice, as ceph's s3-tests {@code
 * test_multipart_resend_first_finishes_last} does: part 1 is uploaded twice, the upload that finishes last is the
 * part, and the client lists both answers' ETags under number 1. S3 completes with the part stored last.
 */
class RepeatedPartNumberTest {
    private static final byte[] FIRST = "BBBBBBBB".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LAST = "AAAAAAAA".getBytes(StandardCharsets.US_ASCII);

    private EmbeddedStore store;
    private S3Gateway gateway;
    private String uploadId;
    private String firstEtag;
    private String lastEtag;

    @BeforeEach
    void start() throws Exception {
        store = EmbeddedStores.inMemory(Map.of(SdkSigner.AK, SdkSigner.SECRET));
        gateway = new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC());
        assertEquals(200, call("PUT", "/bkt", "", new byte[0]).status);
        TestResponse created = call("POST", "/bkt/mp", "uploads", new byte[0]);
        Matcher m = Pattern.compile("<UploadId>([^<]+)</UploadId>").matcher(created.text());
        assertTrue(m.find(), created.text());
        uploadId = m.group(1);
        firstEtag = uploadPart(1, FIRST);
        lastEtag = uploadPart(1, LAST);
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private TestResponse call(String method, String path, String query, byte[] body) throws IOException {
        TestResponse out = new TestResponse();
        gateway.handle(SdkSigner.sign(method, path, query, body, Body.SIGNED_HASH, Instant.now()), out);
        return out;
    }

    private String uploadPart(int n, byte[] body) throws IOException {
        TestResponse r = call("PUT", "/bkt/mp", "partNumber=" + n + "&uploadId=" + uploadId, body);
        assertEquals(200, r.status, r.text());
        return r.header("ETag");
    }

    private TestResponse complete(Object... numbersAndEtags) throws IOException {
        StringBuilder xml = new StringBuilder("<CompleteMultipartUpload>");
        for (int i = 0; i < numbersAndEtags.length; i += 2) {
            xml.append("<Part><PartNumber>").append(numbersAndEtags[i]).append("</PartNumber><ETag>")
                    .append(numbersAndEtags[i + 1]).append("</ETag></Part>");
        }
        xml.append("</CompleteMultipartUpload>");
        return call("POST", "/bkt/mp", "uploadId=" + uploadId, xml.toString().getBytes(StandardCharsets.UTF_8));
    }

    private static void assertError(TestResponse r, int status, String code) {
        assertEquals(status, r.status, r.text());
        assertTrue(r.text().contains("<Code>" + code + "</Code>"), r.text());
    }

    @Test
    void bothUploadsListedCompletesWithTheOneThatFinishedLast() throws Exception {
        TestResponse done = complete(1, firstEtag, 1, lastEtag);
        assertEquals(200, done.status, done.text());
        TestResponse got = call("GET", "/bkt/mp", "", null);
        assertEquals(200, got.status, got.text());
        assertArrayEquals(LAST, got.bytes());
        assertTrue(got.header("ETag").endsWith("-1\""), got.header("ETag"));
        // a retried Complete (its answer lost) with the same list answers the same object
        TestResponse again = complete(1, firstEtag, 1, lastEtag);
        assertEquals(200, again.status, again.text());
        assertEquals(done.text().replaceAll("<Location>.*</Location>", ""),
                again.text().replaceAll("<Location>.*</Location>", ""));
    }

    @Test
    void theOrderOfTheListedUploadsDoesNotMatter() throws Exception {
        assertEquals(200, complete(1, lastEtag, 1, firstEtag).status);
        assertArrayEquals(LAST, call("GET", "/bkt/mp", "", null).bytes());
    }

    @Test
    void aRunNamingOnlyASupersededUploadIsInvalidPartAndStoresNothing() throws Exception {
        assertError(complete(1, firstEtag, 1, firstEtag), 400, "InvalidPart");
        assertError(call("GET", "/bkt/mp", "", null), 404, "NoSuchKey");
        assertEquals(200, complete(1, lastEtag).status, "the upload is still open");
    }

    @Test
    void aNumberComingBackAfterAHigherOneIsStillInvalidPartOrder() throws Exception {
        String two = uploadPart(2, FIRST);
        assertError(complete(1, lastEtag, 2, two, 1, lastEtag), 400, "InvalidPartOrder");
        assertError(call("GET", "/bkt/mp", "", null), 404, "NoSuchKey");
    }
}
