package org.objrdma.itests.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Every error row of the gateway issue, each with its S3 status and XML {@code Code}, and each followed by a
 * look (HEAD or list) that proves nothing was stored. Requests no client sends are made with {@link RawS3};
 * where the fault is the signing itself, a correctly signed twin of the same request is sent first, so a
 * refusal cannot come from a broken test signer.
 */
public abstract class ErrorConformance extends S3ConformanceBase {

    private static final String CRC32_TRAILER = "x-amz-checksum-crc32";

    @Test
    void missingKeyAndBucket() throws Exception {
        String bucket = newBucket("err404");
        assertError(raw().signed("GET", path(bucket, "no/such key"), null, Map.of(), new byte[0]), 404, "NoSuchKey");
        assertError(raw().signed("GET", "/" + bucketName("absent") + "/k", null, Map.of(), new byte[0]), 404,
                "NoSuchBucket");
        assertError(raw().signed("GET", "/" + bucketName("absent"), "list-type=2", Map.of(), new byte[0]), 404,
                "NoSuchBucket");
        String absent = bucketName("absent");
        assertError(raw().signed("PUT", path(absent, "k"), null, Map.of(), bytes("x")), 404, "NoSuchBucket");
        assertError(raw().signed("HEAD", "/" + absent, null, Map.of(), new byte[0]), 404, null);
    }

    @Test
    void rangeOutsideTheObject() throws Exception {
        String bucket = newBucket("err416");
        s3(ClientMode.DEFAULTS).putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromBytes(new byte[1000]));
        assertError(raw().signed("GET", path(bucket, "k"), null, Map.of("Range", "bytes=1000-2000"), new byte[0]),
                416, "InvalidRange");
    }

    @Test
    void badSignatureStoresNothing() throws Exception {
        String bucket = newBucket("errsig");
        S3Target t = target();
        RawS3 wrongSecret = new RawS3(new S3Target(t.endpoint(), t.accessKey(), t.secretKey() + "x", t.region()));
        assertError(wrongSecret.signed("PUT", path(bucket, "k"), null, Map.of(), bytes("data")), 403,
                "SignatureDoesNotMatch");
        assertAbsent(bucket, "k");
        RawS3 wrongKey = new RawS3(new S3Target(t.endpoint(), "NOSUCHACCESSKEY", t.secretKey(), t.region()));
        assertError(wrongKey.signed("PUT", path(bucket, "k"), null, Map.of(), bytes("data")), 403,
                "InvalidAccessKeyId");
        assertAbsent(bucket, "k");
        // a payload that is not the one whose hash was signed
        assertError(raw().signedAt("PUT", path(bucket, "k"), null, Map.of(), bytes("other"),
                SigV4.hex(SigV4.sha256(bytes("data"))), Instant.now()), 400, "XAmzContentSHA256Mismatch");
        assertAbsent(bucket, "k");
    }

    @Test
    void expiredPresignedUrl() throws Exception {
        String bucket = newBucket("errexp");
        s3(ClientMode.DEFAULTS).putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromString("v"));
        SigV4 signer = raw().signer();
        RawS3.Response fresh = raw().get(signer.presign("GET", raw().uri(path(bucket, "k"), null), Instant.now(), 60));
        assertEquals(200, fresh.status(), fresh::toString);
        URI expired = signer.presign("GET", raw().uri(path(bucket, "k"), null),
                Instant.now().minus(2, ChronoUnit.HOURS), 60);
        assertError(raw().get(expired), 403, "AccessDenied");
        URI expiredPut = signer.presign("PUT", raw().uri(path(bucket, "k2"), null),
                Instant.now().minus(2, ChronoUnit.HOURS), 60);
        assertError(raw().send("PUT", expiredPut, Map.of(), bytes("v2")), 403, "AccessDenied");
        assertAbsent(bucket, "k2");
    }

    @Test
    void skewedClock() throws Exception {
        String bucket = newBucket("errskew");
        byte[] body = bytes("late");
        for (long minutes : new long[] {-20, 20}) {
            assertError(raw().signedAt("PUT", path(bucket, "k"), null, Map.of(), body,
                    SigV4.hex(SigV4.sha256(body)), Instant.now().plus(minutes, ChronoUnit.MINUTES)), 403,
                    "RequestTimeTooSkewed");
        }
        assertAbsent(bucket, "k");
    }

    @Test
    void badChunkSignature() throws Exception {
        String bucket = newBucket("errchunk");
        byte[] data = Payloads.random(200_000, 9);
        assertEquals(200, putSignedChunks(bucket, "good", data, false).status(), "correctly signed chunks");
        assertEquals(Payloads.sha256(data),
                Payloads.sha256(s3(ClientMode.DEFAULTS).getObjectAsBytes(b -> b.bucket(bucket).key("good")).asByteArray()));
        assertError(putSignedChunks(bucket, "bad", data, true), 403, "SignatureDoesNotMatch");
        assertAbsent(bucket, "bad");
    }

    @Test
    void badTrailerChecksumInSignedChunks() throws Exception {
        // the SDK's default shape: signed chunks, a CRC32 trailer, the trailer signed too
        String bucket = newBucket("errtrail");
        byte[] data = Payloads.random(150_000, 10);
        String good = Payloads.checksum("CRC32", data);
        assertEquals(200, putSignedTrailer(bucket, "good", data, good).status(), "correct trailer");
        assertEquals(Payloads.sha256(data),
                Payloads.sha256(s3(ClientMode.DEFAULTS).getObjectAsBytes(b -> b.bucket(bucket).key("good")).asByteArray()));
        assertStoredCrc32(bucket, "good", good);
        // s3proxy 4.1.0 stores this body with a wrong CRC32 trailer (200); S3 refuses it with 400 BadDigest
        org.junit.jupiter.api.Assumptions.assumeTrue(followsS3Strictly(),
                "s3proxy 4.1.0 does not validate the trailer of a raw aws-chunked upload");
        assertError(putSignedTrailer(bucket, "bad", data, Payloads.checksum("CRC32", bytes("something else"))), 400,
                "BadDigest");
        assertAbsent(bucket, "bad");
    }

    @Test
    void badTrailerChecksumInUnsignedChunks() throws Exception {
        // what the SDK and aws CLI >= 2.23 send over HTTPS
        org.junit.jupiter.api.Assumptions.assumeTrue(followsS3Strictly(),
                "s3proxy 4.1.0 stores a STREAMING-UNSIGNED-PAYLOAD-TRAILER body whose CRC32 trailer is wrong");
        String bucket = newBucket("errutrail");
        byte[] data = Payloads.random(70_000, 10);
        String good = Payloads.checksum("CRC32", data);
        assertEquals(200, putUnsignedTrailer(bucket, "good", data, good).status(), "correct trailer");
        assertStoredCrc32(bucket, "good", good);
        assertError(putUnsignedTrailer(bucket, "bad", data, Payloads.checksum("CRC32", bytes("something else"))), 400,
                "BadDigest");
        assertAbsent(bucket, "bad");
    }

    private void assertStoredCrc32(String bucket, String key, String crc32) {
        if (followsS3Strictly()) {
            // S3 stores a trailer's checksum and returns it in checksum mode; s3proxy 4.1.0 stores none
            assertEquals(crc32, s3(ClientMode.DEFAULTS).headObject(b -> b.bucket(bucket).key(key)
                    .checksumMode(software.amazon.awssdk.services.s3.model.ChecksumMode.ENABLED)).checksumCRC32());
        }
    }

    @Test
    void checksumHeadersIncludingCrc64Nvme() throws Exception {
        String bucket = newBucket("errsum");
        byte[] data = Payloads.random(5000, 12);
        for (String algorithm : new String[] {"CRC64NVME", "CRC32C", "SHA256"}) {
            String header = "x-amz-checksum-" + algorithm.toLowerCase(java.util.Locale.ROOT);
            RawS3.Response ok = raw().signed("PUT", path(bucket, algorithm), null,
                    Map.of(header, Payloads.checksum(algorithm, data)), data);
            assertEquals(200, ok.status(), ok::toString);
            RawS3.Response head = raw().signed("HEAD", path(bucket, algorithm), null,
                    Map.of("x-amz-checksum-mode", "ENABLED"), new byte[0]);
            String returned = head.headers().firstValue(header).orElse(null);
            if (followsS3Strictly() || returned != null) { // s3proxy 4.1.0 stores no checksum
                assertEquals(Payloads.checksum(algorithm, data), returned, algorithm);
            }
            assertError(raw().signed("PUT", path(bucket, algorithm + "-bad"), null,
                    Map.of(header, Payloads.checksum(algorithm, bytes("not it"))), data), 400, "BadDigest");
            assertAbsent(bucket, algorithm + "-bad");
        }
    }

    @Test
    void contentMd5Mismatch() throws Exception {
        String bucket = newBucket("errmd5");
        byte[] data = bytes("payload");
        assertEquals(200, raw().signed("PUT", path(bucket, "ok"), null,
                Map.of("Content-MD5", Payloads.md5Base64(data)), data).status());
        assertError(raw().signed("PUT", path(bucket, "k"), null, Map.of("Content-MD5", Payloads.md5Base64(bytes("x"))),
                data), 400, "BadDigest");
        assertAbsent(bucket, "k");
        assertError(raw().signed("PUT", path(bucket, "k"), null, Map.of("Content-MD5", "not-base64-md5"), data), 400,
                "InvalidDigest");
        assertAbsent(bucket, "k");
    }

    @Test
    void nonEmptyBucketDelete() throws Exception {
        String bucket = newBucket("errfull");
        S3Client s3 = s3(ClientMode.DEFAULTS);
        s3.putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromString("v"));
        assertError(raw().signed("DELETE", "/" + bucket, null, Map.of(), new byte[0]), 409, "BucketNotEmpty");
        s3.headBucket(b -> b.bucket(bucket));
        assertEquals("v", s3.getObjectAsBytes(b -> b.bucket(bucket).key("k")).asUtf8String());
    }

    @Test
    void invalidBucketNames() throws Exception {
        java.util.List<String> invalid = new java.util.ArrayList<>(java.util.List.of("ab", "-leading", "192.168.1.1"));
        if (followsS3Strictly()) {
            // S3's naming rules; s3proxy 4.1.0 creates these (and answers 409 for Upper_Case)
            invalid.addAll(java.util.List.of("Upper_Case", "a..b", "x".repeat(64), "under_score", "trailing-"));
        }
        for (String name : invalid) {
            RawS3.Response r = raw().signed("PUT", "/" + name, null, Map.of(), new byte[0]);
            assertEquals(400, r.status(), () -> name + ": " + r);
            assertError(r, 400, "InvalidBucketName");
        }
        var names = s3(ClientMode.DEFAULTS).listBuckets().buckets().stream().map(b -> b.name()).toList();
        assertFalse(names.stream().anyMatch(invalid::contains), names::toString);
    }

    @Test
    void multipartPartNumberAndOrderChecks() throws Exception {
        S3Client s3 = s3(ClientMode.DEFAULTS);
        String bucket = newBucket("errparts");
        String uploadId = s3.createMultipartUpload(b -> b.bucket(bucket).key("k")).uploadId();
        String q = "uploadId=" + SigV4.encode(uploadId, true);
        byte[] small = bytes("small part");
        // S3 allows part numbers 1..10000
        for (int bad : new int[] {0, 10001}) {
            assertError(raw().signed("PUT", path(bucket, "k"), "partNumber=" + bad + "&" + q, Map.of(), small), 400,
                    "InvalidArgument");
        }
        byte[] five = Payloads.random(5 << 20, 13);
        String e1 = s3.uploadPart(b -> b.bucket(bucket).key("k").uploadId(uploadId).partNumber(1),
                RequestBody.fromBytes(five)).eTag();
        String e2 = s3.uploadPart(b -> b.bucket(bucket).key("k").uploadId(uploadId).partNumber(2),
                RequestBody.fromBytes(small)).eTag();
        assertError(complete(bucket, q, 1, e1, 2, "\"00000000000000000000000000000000\""), 400, "InvalidPart");
        assertError(complete(bucket, q, 1, e1, 3, e2), 400, "InvalidPart");
        assertAbsent(bucket, "k");
        if (followsS3Strictly()) {
            // s3proxy 4.1.0 (filesystem) completes parts listed out of order; S3 refuses them
            assertError(complete(bucket, q, 2, e2, 1, e1), 400, "InvalidPartOrder");
            assertAbsent(bucket, "k");
            // s3proxy 4.1.0 (filesystem) completes with a non-last part under 5 MiB; S3 refuses it
            String e3 = s3.uploadPart(b -> b.bucket(bucket).key("k").uploadId(uploadId).partNumber(3),
                    RequestBody.fromBytes(small)).eTag();
            assertError(complete(bucket, q, 1, e1, 2, e2, 3, e3), 400, "EntityTooSmall");
            assertAbsent(bucket, "k");
        }
        // the upload survives the refused completions and still completes
        assertTrue(s3.listMultipartUploads(b -> b.bucket(bucket)).uploads().stream()
                .anyMatch(u -> u.uploadId().equals(uploadId)));
        RawS3.Response done = complete(bucket, q, 1, e1, 2, e2);
        assertEquals(200, done.status(), done::toString);
        assertEquals(five.length + small.length, s3.headObject(b -> b.bucket(bucket).key("k")).contentLength());
    }

    @Test
    void anonymousRequestsAreRefused() throws Exception {
        String bucket = newBucket("erranon");
        s3(ClientMode.DEFAULTS).putObject(b -> b.bucket(bucket).key("k"), RequestBody.fromString("v"));
        assertError(raw().get(raw().uri("/", null)), 403, "AccessDenied");
        assertError(raw().get(raw().uri(path(bucket, "k"), null)), 403, "AccessDenied");
        assertError(raw().send("PUT", raw().uri(path(bucket, "anon"), null), Map.of(), bytes("x")), 403,
                "AccessDenied");
        assertAbsent(bucket, "anon");
    }

    @Test
    void unsupportedOperationIsNotImplemented() throws Exception {
        String bucket = newBucket("err501");
        RawS3.Response r = raw().signed("PUT", "/" + bucket, "website", Map.of(), bytes(
                "<WebsiteConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><IndexDocument>"
                        + "<Suffix>index.html</Suffix></IndexDocument></WebsiteConfiguration>"));
        assertError(r, 501, "NotImplemented");
    }

    @Test
    void signatureV2WithAWrongSignatureIsRefused() throws Exception {
        String bucket = newBucket("errv2");
        RawS3.Response r = raw().send("PUT", raw().uri(path(bucket, "k"), null),
                Map.of("Authorization", "AWS " + accessKey() + ":bm90IGEgcmVhbCBzaWduYXR1cmU=", "Date", httpDate()),
                bytes("v2"));
        assertError(r, 403, "SignatureDoesNotMatch");
        assertAbsent(bucket, "k");
    }

    @Test
    void signatureV2DigestAndDateRows() throws Exception {
        String bucket = newBucket("errv2md5");
        byte[] body = bytes("signed with version 2");
        String goodMd5 = java.util.Base64.getEncoder().encodeToString(
                java.security.MessageDigest.getInstance("MD5").digest(body));
        String otherMd5 = java.util.Base64.getEncoder().encodeToString(
                java.security.MessageDigest.getInstance("MD5").digest(bytes("other")));
        assertError(putV2(bucket, "k", body, otherMd5, httpDate()), 400, "BadDigest");
        assertAbsent(bucket, "k");
        assertError(putV2(bucket, "k", body, "not-an-md5", httpDate()), 400, "InvalidDigest");
        assertAbsent(bucket, "k");
        assertError(putV2(bucket, "k", body, goodMd5, null), 403, "AccessDenied");
        assertAbsent(bucket, "k");
        String old = java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
                java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC).minusHours(1));
        assertEquals(403, putV2(bucket, "k", body, goodMd5, old).status(), "an hour-old Date is refused");
        assertAbsent(bucket, "k");
        RawS3.Response ok = putV2(bucket, "k", body, goodMd5, httpDate());
        assertEquals(200, ok.status(), ok::toString);
        assertEquals(new String(body, StandardCharsets.UTF_8),
                s3(ClientMode.DEFAULTS).getObjectAsBytes(b -> b.bucket(bucket).key("k")).asUtf8String());
    }

    /** A PUT signed with SigV2 (Content-MD5, Content-Type, Date and the bucket/key resource signed). */
    private RawS3.Response putV2(String bucket, String key, byte[] body, String contentMd5, String date)
            throws Exception {
        String resource = path(bucket, key);
        String toSign = "PUT\n" + contentMd5 + "\napplication/octet-stream\n" + (date == null ? "" : date) + "\n"
                + resource;
        javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA1");
        mac.init(new javax.crypto.spec.SecretKeySpec(secretKey().getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
        String signature = java.util.Base64.getEncoder().encodeToString(
                mac.doFinal(toSign.getBytes(StandardCharsets.UTF_8)));
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        headers.put("Authorization", "AWS " + accessKey() + ":" + signature);
        headers.put("Content-MD5", contentMd5);
        headers.put("Content-Type", "application/octet-stream");
        if (date != null) {
            headers.put("Date", date);
        }
        return raw().send("PUT", raw().uri(resource, null), headers, body);
    }

    private static String httpDate() {
        return java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME.format(
                java.time.ZonedDateTime.now(java.time.ZoneOffset.UTC));
    }

    private RawS3.Response putSignedChunks(String bucket, String key, byte[] data, boolean tamper) throws Exception {
        RawS3 raw = raw();
        java.net.URI uri = raw.uri(path(bucket, key), null);
        Map<String, String> headers = RawS3.headers("Content-Encoding", "aws-chunked",
                "x-amz-decoded-content-length", String.valueOf(data.length));
        SigV4.Signed seed = raw.signer().sign("PUT", uri, headers, SigV4.STREAMING_SIGNED, Instant.now());
        byte[] body = raw.signer().signedChunks(seed, data, 64 * 1024);
        if (tamper) {
            // flip one hex digit of the second chunk's signature
            String text = new String(body, StandardCharsets.ISO_8859_1);
            int second = text.indexOf("chunk-signature=", text.indexOf("chunk-signature=") + 1) + 16;
            body[second] = (byte) (body[second] == '0' ? '1' : '0');
        }
        return raw.send("PUT", uri, seed.headers(), body);
    }

    private RawS3.Response putSignedTrailer(String bucket, String key, byte[] data, String crc32) throws Exception {
        RawS3 raw = raw();
        java.net.URI uri = raw.uri(path(bucket, key), null);
        Map<String, String> headers = RawS3.headers("Content-Encoding", "aws-chunked",
                "x-amz-decoded-content-length", String.valueOf(data.length), "x-amz-trailer", CRC32_TRAILER,
                "x-amz-sdk-checksum-algorithm", "CRC32");
        SigV4.Signed seed = raw.signer().sign("PUT", uri, headers, SigV4.STREAMING_SIGNED_TRAILER, Instant.now());
        return raw.send("PUT", uri, seed.headers(), raw.signer().signedChunks(seed, data, 64 * 1024, CRC32_TRAILER, crc32));
    }

    private RawS3.Response putUnsignedTrailer(String bucket, String key, byte[] data, String crc32) throws Exception {
        Map<String, String> headers = RawS3.headers("Content-Encoding", "aws-chunked",
                "x-amz-decoded-content-length", String.valueOf(data.length), "x-amz-trailer", CRC32_TRAILER,
                "x-amz-sdk-checksum-algorithm", "CRC32"); // as the SDK sends it
        return raw().signedAt("PUT", path(bucket, key), null, headers,
                SigV4.unsignedChunksWithTrailer(data, CRC32_TRAILER, crc32), SigV4.STREAMING_UNSIGNED_TRAILER,
                Instant.now());
    }

    private RawS3.Response complete(String bucket, String uploadQuery, Object... numberEtag) throws Exception {
        StringBuilder xml = new StringBuilder("<CompleteMultipartUpload>");
        for (int i = 0; i < numberEtag.length; i += 2) {
            xml.append("<Part><PartNumber>").append(numberEtag[i]).append("</PartNumber><ETag>")
                    .append(numberEtag[i + 1]).append("</ETag></Part>");
        }
        xml.append("</CompleteMultipartUpload>");
        return raw().signed("POST", path(bucket, "k"), uploadQuery, Map.of(), bytes(xml.toString()));
    }

    /** The status, and for a body-carrying error the S3 XML {@code Code}; every response names its request id. */
    static void assertError(RawS3.Response r, int status, String code) {
        assertEquals(status, r.status(), r::toString);
        if (code != null) {
            assertEquals(code, r.code(), r::toString);
            assertTrue(r.text().contains("<Error>"), r::toString);
        }
        assertNotNull(r.headers().firstValue("x-amz-request-id").orElse(null), "x-amz-request-id on " + r);
    }

    /** Nothing stored under {@code key}: HEAD is 404 and no listing names it. */
    void assertAbsent(String bucket, String key) throws Exception {
        assertEquals(404, raw().signed("HEAD", path(bucket, key), null, Map.of(), new byte[0]).status(), key);
        S3Client s3 = s3(ClientMode.DEFAULTS);
        assertFalse(s3.listObjectsV2(b -> b.bucket(bucket)).contents().stream().anyMatch(o -> o.key().equals(key)),
                key + " listed");
    }

    static String path(String bucket, String key) {
        return "/" + bucket + "/" + SigV4.encode(key, false);
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
