package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.SdkSigner.Body;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;

/**
 * The S3 operations and every error row of issue 14 at the protocol level, against the store bundle's
 * in-memory store, with requests signed by the AWS SDK v2 signer. Each refused write is followed by a
 * read proving nothing was stored.
 */
class S3GatewayTest {

    private EmbeddedStore store;
    private S3Gateway gateway;

    @BeforeEach
    void start() throws Exception {
        store = EmbeddedStores.inMemory(Map.of(SdkSigner.AK, SdkSigner.SECRET));
        gateway = new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC());
        assertEquals(200, call("PUT", "/bkt", "", new byte[0], Body.SIGNED_HASH).status);
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private TestResponse call(TestRequest r) throws IOException {
        TestResponse out = new TestResponse();
        gateway.handle(r, out);
        assertNotNull(out.header("x-amz-request-id"), "every response carries x-amz-request-id");
        return out;
    }

    private TestResponse call(String method, String path, String query, byte[] body, Body mode, String... headers)
            throws IOException {
        return call(SdkSigner.sign(method, path, query, body, mode, Instant.now(), headers));
    }

    private TestResponse get(String path, String... headers) throws IOException {
        return call("GET", path, "", null, Body.SIGNED_HASH, headers);
    }

    private static void assertError(TestResponse r, int status, String code) {
        assertEquals(status, r.status, r.text());
        assertTrue(r.text().contains("<Code>" + code + "</Code>"), r.text());
        assertTrue(r.text().contains("<RequestId>" + r.header("x-amz-request-id") + "</RequestId>"), r.text());
        assertTrue(r.text().contains("<Resource>"), r.text());
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static String crc32(byte[] data) {
        CRC32 crc = new CRC32();
        crc.update(data);
        return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    }

    private static String md5(byte[] data) throws Exception {
        return Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(data));
    }

    // ---- operations

    @Test
    void putGetInAllBodyFormsRoundTrips() throws Exception {
        int i = 0;
        for (Body mode : Body.values()) {
            for (int size : new int[] {0, 1, 4096, 300_000}) {
                byte[] data = random(size, i++);
                String path = "/bkt/dir/" + mode + "-" + size;
                TestResponse put = call("PUT", path, "", data, mode);
                assertEquals(200, put.status, mode + " " + size + ": " + put.text());
                TestResponse got = get(path);
                assertEquals(200, got.status);
                assertArrayEquals(data, got.bytes(), mode + " " + size);
                assertEquals(size, got.contentLength);
            }
        }
    }

    @Test
    void trailerChecksumIsStoredAndReturnedInChecksumMode() throws Exception {
        byte[] data = random(5000, 7);
        assertEquals(200, call("PUT", "/bkt/c", "", data, Body.SIGNED_CHUNKS_TRAILER).status);
        TestResponse head = call("HEAD", "/bkt/c", "", null, Body.SIGNED_HASH, "x-amz-checksum-mode", "ENABLED");
        assertEquals(200, head.status);
        assertEquals(crc32(data), head.header("x-amz-checksum-crc32"));
        assertEquals(5000, head.contentLength);
        assertEquals(0, head.bytes().length);
    }

    @Test
    void keysComeFromTheRawUri() throws Exception {
        assertEquals(200, call("PUT", "/bkt/a%2Fb//c%20d", "", "x".getBytes(StandardCharsets.UTF_8), Body.SIGNED_HASH).status);
        TestResponse list = call("GET", "/bkt", "list-type=2", null, Body.SIGNED_HASH);
        assertTrue(list.text().contains("<Key>a/b//c d</Key>"), list.text());
        TestResponse encoded = call("GET", "/bkt", "list-type=2&encoding-type=url", null, Body.SIGNED_HASH);
        assertTrue(encoded.text().contains("<Key>a/b//c%20d</Key>"), encoded.text());
    }

    @Test
    void rangesConditionsAndOverrides() throws Exception {
        byte[] data = "0123456789".getBytes(StandardCharsets.US_ASCII);
        TestResponse put = call("PUT", "/bkt/r", "", data, Body.SIGNED_HASH);
        String etag = put.header("ETag");
        TestResponse r1 = get("/bkt/r", "Range", "bytes=2-4");
        assertEquals(206, r1.status);
        assertEquals("234", r1.text());
        assertEquals("bytes 2-4/10", r1.header("Content-Range"));
        assertEquals("789", get("/bkt/r", "Range", "bytes=-3").text());
        assertEquals("89", get("/bkt/r", "Range", "bytes=8-").text());
        assertError(get("/bkt/r", "Range", "bytes=10-"), 416, "InvalidRange");
        assertEquals(304, get("/bkt/r", "If-None-Match", etag).status);
        assertError(get("/bkt/r", "If-Match", "\"nope\""), 412, "PreconditionFailed");
        assertEquals(200, get("/bkt/r", "If-Match", etag).status);
        TestResponse o = call("GET", "/bkt/r", "response-content-type=text/x-test&response-content-disposition=attachment",
                null, Body.SIGNED_HASH);
        assertEquals("text/x-test", o.header("Content-Type"));
        assertEquals("attachment", o.header("Content-Disposition"));
        assertEquals(206, call("GET", "/bkt/r", "partNumber=1", null, Body.SIGNED_HASH).status);
    }

    @Test
    void bucketsListAndLocation() throws Exception {
        assertTrue(get("/").text().contains("<Name>bkt</Name>"));
        assertEquals(200, call("HEAD", "/bkt", "", null, Body.SIGNED_HASH).status);
        assertEquals(404, call("HEAD", "/nobucket", "", null, Body.SIGNED_HASH).status);
        assertTrue(call("GET", "/bkt", "location", null, Body.SIGNED_HASH).text().contains("LocationConstraint"));
        for (int k = 0; k < 5; k++) {
            call("PUT", "/bkt/p/" + k, "", new byte[] {1}, Body.SIGNED_HASH);
        }
        TestResponse v1 = call("GET", "/bkt", "prefix=p/&max-keys=2&delimiter=/", null, Body.SIGNED_HASH);
        assertTrue(v1.text().contains("<IsTruncated>true</IsTruncated>"), v1.text());
        assertTrue(v1.text().contains("<NextMarker>p/1</NextMarker>"), v1.text());
        TestResponse v2 = call("GET", "/bkt", "list-type=2&delimiter=/", null, Body.SIGNED_HASH);
        assertTrue(v2.text().contains("<CommonPrefixes><Prefix>p/</Prefix></CommonPrefixes>"), v2.text());
    }

    @Test
    void copyAndDeleteObjects() throws Exception {
        call("PUT", "/bkt/src", "", "hello".getBytes(StandardCharsets.US_ASCII), Body.SIGNED_HASH, "x-amz-meta-color", "red");
        TestResponse copy = call("PUT", "/bkt/dst", "", new byte[0], Body.SIGNED_HASH, "x-amz-copy-source", "/bkt/src");
        assertEquals(200, copy.status, copy.text());
        assertTrue(copy.text().contains("<CopyObjectResult"));
        assertEquals("red", get("/bkt/dst").header("x-amz-meta-color"));
        TestResponse replaced = call("PUT", "/bkt/dst2", "", new byte[0], Body.SIGNED_HASH, "x-amz-copy-source", "bkt/src",
                "x-amz-metadata-directive", "REPLACE", "x-amz-meta-color", "blue");
        assertEquals(200, replaced.status);
        assertEquals("blue", get("/bkt/dst2").header("x-amz-meta-color"));
        byte[] xml = "<Delete><Object><Key>dst</Key></Object><Object><Key>dst2</Key></Object></Delete>"
                .getBytes(StandardCharsets.UTF_8);
        TestResponse del = call("POST", "/bkt", "delete", xml, Body.SIGNED_HASH, "Content-MD5", md5(xml));
        assertEquals(200, del.status, del.text());
        assertTrue(del.text().contains("<Deleted><Key>dst2</Key></Deleted>"), del.text());
        assertEquals(404, get("/bkt/dst").status);
        assertEquals(204, call("DELETE", "/bkt/src", "", null, Body.SIGNED_HASH).status);
        assertError(get("/bkt/src"), 404, "NoSuchKey");
    }

    private static String uploadId(TestResponse r) {
        Matcher m = Pattern.compile("<UploadId>([^<]+)</UploadId>").matcher(r.text());
        assertTrue(m.find(), r.text());
        return m.group(1);
    }

    /**
     * CompleteMultipartUpload's Location is an absolute URL with the scheme the request came by (SigV4 does not sign
     * the scheme, the connection tells it): https over TLS, the key URI-encoded; before, "/bkt/key" whatever the
     * scheme.
     */
    @Test
    void completeMultipartLocationCarriesTheSchemeTheRequestCameBy() throws Exception {
        for (boolean tls : new boolean[] {false, true}) {
            String key = "/bkt/a%20b/" + (tls ? "tls" : "plain");
            TestResponse created = call(SdkSigner.sign("POST", key, "uploads", new byte[0], Body.SIGNED_HASH,
                    Instant.now()).secure(tls));
            String id = uploadId(created);
            TestResponse p1 = call(SdkSigner.sign("PUT", key, "partNumber=1&uploadId=" + id, new byte[] {1, 2},
                    Body.SIGNED_HASH, Instant.now()).secure(tls));
            assertEquals(200, p1.status, p1.text());
            byte[] complete = ("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>" + p1.header("ETag")
                    + "</ETag></Part></CompleteMultipartUpload>").getBytes(StandardCharsets.UTF_8);
            TestResponse done = call(SdkSigner.sign("POST", key, "uploadId=" + id, complete, Body.SIGNED_HASH,
                    Instant.now()).secure(tls));
            assertEquals(200, done.status, done.text());
            assertTrue(done.text().contains("<Location>" + (tls ? "https" : "http") + "://127.0.0.1:8181" + key
                    + "</Location>"), done.text());
        }
    }

    @Test
    void multipartUploadWithCopyPartListAndComplete() throws Exception {
        byte[] part1 = random(5 << 20, 11);
        byte[] tail = "tail".getBytes(StandardCharsets.US_ASCII);
        call("PUT", "/bkt/copysrc", "", tail, Body.SIGNED_HASH);
        TestResponse created = call("POST", "/bkt/big", "uploads", new byte[0], Body.SIGNED_HASH);
        assertEquals(200, created.status, created.text());
        String id = uploadId(created);
        TestResponse p1 = call("PUT", "/bkt/big", "partNumber=1&uploadId=" + id, part1, Body.SIGNED_CHUNKS_TRAILER);
        assertEquals(200, p1.status, p1.text());
        TestResponse p2 = call("PUT", "/bkt/big", "partNumber=2&uploadId=" + id, new byte[0], Body.SIGNED_HASH,
                "x-amz-copy-source", "/bkt/copysrc", "x-amz-copy-source-range", "bytes=0-3");
        assertEquals(200, p2.status, p2.text());
        assertTrue(call("GET", "/bkt", "uploads", null, Body.SIGNED_HASH).text().contains(id));
        TestResponse parts = call("GET", "/bkt/big", "uploadId=" + id, null, Body.SIGNED_HASH);
        assertTrue(parts.text().contains("<PartNumber>2</PartNumber>"), parts.text());
        String etag2 = parts.text().replaceAll("(?s).*<PartNumber>2</PartNumber>.*?<ETag>([^<]+)</ETag>.*", "$1");
        byte[] complete = ("<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>" + p1.header("ETag")
                + "</ETag></Part><Part><PartNumber>2</PartNumber><ETag>" + etag2.replace("&quot;", "\"")
                + "</ETag></Part></CompleteMultipartUpload>").getBytes(StandardCharsets.UTF_8);
        TestResponse done = call("POST", "/bkt/big", "uploadId=" + id, complete, Body.SIGNED_HASH);
        assertEquals(200, done.status, done.text());
        assertTrue(done.text().contains("<Location>http://127.0.0.1:8181/bkt/big</Location>"), done.text());
        assertTrue(done.text().contains("-2&quot;</ETag>") || done.text().contains("-2\"</ETag>"), done.text());
        TestResponse got = get("/bkt/big");
        assertEquals(part1.length + 4, got.bytes().length);
        assertArrayEquals(tail, Arrays.copyOfRange(got.bytes(), part1.length, part1.length + 4));
        assertNull(got.header("x-amz-mp-parts-count"), "S3 sends the parts count only for a partNumber read");
        TestResponse another = call("POST", "/bkt/gone", "uploads", new byte[0], Body.SIGNED_HASH);
        String id2 = uploadId(another);
        assertEquals(204, call("DELETE", "/bkt/gone", "uploadId=" + id2, null, Body.SIGNED_HASH).status);
        assertError(call("GET", "/bkt/gone", "uploadId=" + id2, null, Body.SIGNED_HASH), 404, "NoSuchUpload");
    }

    // ---- error rows: each with its S3 code, and nothing stored

    private void assertNotStored(String path) throws IOException {
        assertError(get(path), 404, "NoSuchKey");
    }

    @Test
    void missingKeyAndBucket() throws Exception {
        assertError(get("/bkt/none"), 404, "NoSuchKey");
        assertError(get("/nosuch/none"), 404, "NoSuchBucket");
    }

    @Test
    void badSignatureStoresNothing() throws Exception {
        TestRequest r = SdkSigner.sign("PUT", "/bkt/sig", "", new byte[] {1, 2}, Body.SIGNED_HASH, Instant.now());
        String auth = r.header("Authorization");
        r.removeHeader("Authorization").header("Authorization", auth.substring(0, auth.length() - 1)
                + (auth.endsWith("0") ? "1" : "0"));
        assertError(call(r), 403, "SignatureDoesNotMatch");
        assertNotStored("/bkt/sig");
    }

    @Test
    void skewedClockStoresNothing() throws Exception {
        TestRequest r = SdkSigner.sign("PUT", "/bkt/skew", "", new byte[] {1}, Body.SIGNED_HASH,
                Instant.now().minus(Duration.ofMinutes(20)));
        assertError(call(r), 403, "RequestTimeTooSkewed");
        assertNotStored("/bkt/skew");
    }

    @Test
    void expiredPresignIsRefusedAndAFreshOneWorks() throws Exception {
        call("PUT", "/bkt/pre", "", "p".getBytes(StandardCharsets.US_ASCII), Body.SIGNED_HASH);
        TestRequest fresh = SdkSigner.presign("GET", "/bkt/pre", Instant.now(), Duration.ofMinutes(5));
        assertEquals("p", call(fresh).text());
        TestRequest old = SdkSigner.presign("GET", "/bkt/pre", Instant.now().minus(Duration.ofMinutes(10)),
                Duration.ofMinutes(5));
        TestResponse r = call(old);
        assertError(r, 403, "AccessDenied");
        assertTrue(r.text().contains("expired"), r.text());
    }

    @Test
    void badChunkSignatureStoresNothing() throws Exception {
        TestRequest r = SdkSigner.sign("PUT", "/bkt/chunk", "", random(100_000, 3), Body.SIGNED_CHUNKS, Instant.now());
        byte[] wire = r.body().readAllBytes();
        wire[wire.length / 2] ^= 1;
        assertError(call(r.body(wire)), 403, "SignatureDoesNotMatch");
        assertNotStored("/bkt/chunk");
    }

    @Test
    void badTrailerChecksumStoresNothing() throws Exception {
        byte[] data = random(1000, 4);
        TestRequest r = SdkSigner.sign("PUT", "/bkt/trailer", "", data, Body.UNSIGNED_CHUNKS_TRAILER, Instant.now());
        String wire = new String(r.body().readAllBytes(), StandardCharsets.ISO_8859_1);
        byte[] other = data.clone();
        other[0] ^= 1;
        r.body(wire.replace(crc32(data), crc32(other)).getBytes(StandardCharsets.ISO_8859_1));
        assertError(call(r), 400, "BadDigest");
        assertNotStored("/bkt/trailer");
    }

    @Test
    void badHeaderChecksumStoresNothing() throws Exception {
        byte[] data = random(1000, 5);
        TestResponse r = call("PUT", "/bkt/hdr", "", data, Body.SIGNED_HASH, "x-amz-checksum-crc32", crc32(new byte[1]));
        assertError(r, 400, "BadDigest");
        assertNotStored("/bkt/hdr");
    }

    @Test
    void contentMd5MismatchStoresNothing() throws Exception {
        byte[] data = random(1000, 6);
        assertError(call("PUT", "/bkt/md5", "", data, Body.UNSIGNED, "Content-MD5", md5(new byte[1])), 400, "BadDigest");
        assertNotStored("/bkt/md5");
        assertError(call("PUT", "/bkt/md5", "", data, Body.UNSIGNED, "Content-MD5", "not-base64!"), 400, "InvalidDigest");
        assertNotStored("/bkt/md5");
        assertEquals(200, call("PUT", "/bkt/md5", "", data, Body.UNSIGNED, "Content-MD5", md5(data)).status);
    }

    @Test
    void payloadHashMismatchStoresNothing() throws Exception {
        TestRequest r = SdkSigner.sign("PUT", "/bkt/sha", "", new byte[] {1, 2, 3}, Body.SIGNED_HASH, Instant.now());
        r.body(new byte[] {1, 2, 4});
        assertError(call(r), 400, "XAmzContentSHA256Mismatch");
        assertNotStored("/bkt/sha");
    }

    @Test
    void nonEmptyBucketDeleteAndInvalidBucketName() throws Exception {
        call("PUT", "/bkt/x", "", new byte[] {1}, Body.SIGNED_HASH);
        assertError(call("DELETE", "/bkt", "", null, Body.SIGNED_HASH), 409, "BucketNotEmpty");
        assertEquals(200, get("/bkt/x").status);
        assertError(call("PUT", "/Bad_Name", "", new byte[0], Body.SIGNED_HASH), 400, "InvalidBucketName");
        assertFalse(get("/").text().contains("Bad_Name"));
    }

    @Test
    void oversizePartCountAndPartNumber() throws Exception {
        String id = uploadId(call("POST", "/bkt/mp", "uploads", new byte[0], Body.SIGNED_HASH));
        assertError(call("PUT", "/bkt/mp", "partNumber=10001&uploadId=" + id, new byte[] {1}, Body.SIGNED_HASH), 400,
                "InvalidArgument");
        StringBuilder xml = new StringBuilder("<CompleteMultipartUpload>");
        for (int n = 1; n <= 10_001; n++) {
            xml.append("<Part><PartNumber>").append(n).append("</PartNumber><ETag>\"x\"</ETag></Part>");
        }
        xml.append("</CompleteMultipartUpload>");
        assertError(call("POST", "/bkt/mp", "uploadId=" + id, xml.toString().getBytes(StandardCharsets.UTF_8),
                Body.SIGNED_HASH), 400, "InvalidArgument");
        assertNotStored("/bkt/mp");
    }

    @Test
    void anonymousSigV2AndUnknownFeatures() throws Exception {
        TestResponse anon = call(new TestRequest("GET", "/bkt", "").header("Host", "127.0.0.1"));
        assertError(anon, 403, "AccessDenied");
        // ?acl is served since issue 25 (owner-only, AclOperations); versioning is not
        assertError(call("GET", "/bkt", "versioning", null, Body.SIGNED_HASH), 501, "NotImplemented");
        assertError(call("PUT", "/bkt/k", "tagging", new byte[0], Body.SIGNED_HASH), 501, "NotImplemented");
        assertNotStored("/bkt/k");
    }

    /**
     * As S3, a read ignores a query parameter that names no sub-resource (a browser POST's redirect comes back to
     * the bucket with bucket, key and etag appended); a feature's sub-resource stays 501, and so does any unknown
     * parameter of a write, which then stores nothing.
     */
    @Test
    void aReadIgnoresAParameterThatIsNoSubresourceAndAWriteRefusesIt() throws Exception {
        assertEquals(200, call("PUT", "/bkt/k", "", new byte[] {1}, Body.SIGNED_HASH).status);
        TestResponse list = call("GET", "/bkt", "bucket=bkt&key=k&etag=%22x%22", null, Body.SIGNED_HASH);
        assertEquals(200, list.status, list.text());
        assertTrue(list.text().contains("<Key>k</Key>"), list.text());
        assertEquals(200, call("HEAD", "/bkt/k", "foo=bar", null, Body.SIGNED_HASH).status);
        assertError(call("GET", "/bkt/k", "torrent", null, Body.SIGNED_HASH), 501, "NotImplemented");
        assertError(call("GET", "/bkt", "publicAccessBlock", null, Body.SIGNED_HASH), 501, "NotImplemented");
        assertError(call("PUT", "/bkt/other", "foo=bar", new byte[] {1}, Body.SIGNED_HASH), 501, "NotImplemented");
        assertNotStored("/bkt/other");
        assertError(call("DELETE", "/bkt/k", "foo=bar", null, Body.SIGNED_HASH), 501, "NotImplemented");
        assertEquals(200, get("/bkt/k").status);
    }

    /**
     * Finding 6 of the security review: DeleteObjects authorizes the bucket (and finds it) before it reads a
     * byte of the body, and a body whose declared length is over the XML limit is refused before it is read.
     */
    @Test
    void deleteObjectsAuthorizesTheBucketBeforeItReadsTheBody() throws Exception {
        store.close();
        store = EmbeddedStores.inMemory(Map.of(SdkSigner.AK, SdkSigner.SECRET, "BOB", "bob-secret"));
        gateway = new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC());
        assertEquals(200, call("PUT", "/bkt", "", new byte[0], Body.SIGNED_HASH).status);
        byte[] notXml = "<Delete><Object>".getBytes(StandardCharsets.UTF_8);
        TestResponse foreign = call(SdkSigner.signAs("BOB", "bob-secret", "127.0.0.1", "POST", "/bkt", "delete",
                notXml, Body.SIGNED_HASH, Instant.now()));
        assertError(foreign, 403, "AccessDenied");
        assertError(call("POST", "/no-such-bkt", "delete", notXml, Body.SIGNED_HASH), 404, "NoSuchBucket");
        assertError(call("POST", "/bkt", "delete", notXml, Body.SIGNED_HASH), 400, "MalformedXML");
        byte[] tooBig = new byte[S3Settings.DEFAULTS.maxXmlBodyBytes() + 1];
        assertError(call("POST", "/bkt", "delete", tooBig, Body.SIGNED_HASH), 400, "MaxMessageLengthExceeded");
    }

    @Test
    void dtdInXmlBodyIsMalformedXml() throws Exception {
        byte[] xml = ("<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
                + "<Delete><Object><Key>&x;</Key></Object></Delete>").getBytes(StandardCharsets.UTF_8);
        assertError(call("POST", "/bkt", "delete", xml, Body.SIGNED_HASH), 400, "MalformedXML");
    }

    @Test
    void virtualHostStyle() throws Exception {
        S3Gateway vhost = new S3Gateway(store, new S3Settings("us-east-1", "s3.local", Duration.ofMinutes(15), 4096, 1 << 20),
                Clock.systemUTC());
        TestRequest signed = SdkSigner.signFor("bkt.s3.local", "PUT", "/key", "", "v".getBytes(StandardCharsets.US_ASCII),
                Body.SIGNED_HASH, Instant.now());
        TestResponse out = new TestResponse();
        vhost.handle(signed, out);
        assertEquals(200, out.status, out.text());
        assertEquals("v", get("/bkt/key").text());
    }

    @Test
    void clientGoneMidPutKeepsTheOldObject() throws Exception {
        byte[] old = random(10_000, 8);
        assertEquals(200, call("PUT", "/bkt/keep", "", old, Body.SIGNED_HASH).status);
        byte[] fresh = random(100_000, 9);
        TestRequest r = SdkSigner.sign("PUT", "/bkt/keep", "", fresh, Body.UNSIGNED, Instant.now());
        byte[] wire = r.body().readAllBytes();
        // the connection drops after half the body: the container's stream throws
        r.body(new java.io.SequenceInputStream(new java.io.ByteArrayInputStream(wire, 0, wire.length / 2),
                new java.io.InputStream() {
                    @Override
                    public int read() throws IOException {
                        throw new java.io.EOFException("connection reset by peer");
                    }
                }));
        assertThrowsIo(r);
        assertArrayEquals(old, get("/bkt/keep").bytes());
    }

    private void assertThrowsIo(TestRequest r) {
        org.junit.jupiter.api.Assertions.assertThrows(IOException.class, () -> gateway.handle(r, new TestResponse()));
    }
}
