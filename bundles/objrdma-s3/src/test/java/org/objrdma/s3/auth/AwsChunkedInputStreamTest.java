package org.objrdma.s3.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Random;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3BodyException;
import org.objrdma.s3.SdkSigner;
import org.objrdma.s3.TestRequest;

/**
 * aws-chunked decoding: the S3 documentation's signed-chunk example (seed and chunk signatures as
 * documented), bodies signed by the real AWS SDK v2 signer in all three streaming forms, and each way a body
 * can be wrong.
 */
class AwsChunkedInputStreamTest {

    private static final String AK = SigV4AuthenticatorTest.AK;

    /** The documentation's "Example: PUT Object" with 64 KiB + 1 KiB of 'a' in signed chunks. */
    static TestRequest docChunkedPut(String firstChunkSignature) {
        byte[] a64k = new byte[65536];
        byte[] a1k = new byte[1024];
        Arrays.fill(a64k, (byte) 'a');
        Arrays.fill(a1k, (byte) 'a');
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes(("10000;chunk-signature=" + firstChunkSignature + "\r\n").getBytes(StandardCharsets.US_ASCII));
        body.writeBytes(a64k);
        body.writeBytes("\r\n400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        body.writeBytes(a1k);
        body.writeBytes("\r\n0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        byte[] wire = body.toByteArray();
        return new TestRequest("PUT", "/examplebucket/chunkObject.txt", "")
                .header("Host", "s3.amazonaws.com")
                .header("x-amz-date", "20130524T000000Z")
                .header("x-amz-storage-class", "REDUCED_REDUNDANCY")
                .header("Authorization", "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                        + "SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;"
                        + "x-amz-decoded-content-length;x-amz-storage-class,"
                        + "Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9")
                .header("x-amz-content-sha256", "STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
                .header("Content-Encoding", "aws-chunked")
                .header("x-amz-decoded-content-length", "66560")
                .header("Content-Length", String.valueOf(wire.length))
                .body(wire);
    }

    static byte[] drain(InputStream in) throws IOException {
        return in.readAllBytes();
    }

    private static AwsChunkedInputStream decoder(TestRequest r, Instant now) throws Exception {
        Authentication auth = SigV4AuthenticatorTest.at(now).authenticate(r, QueryString.parse(r.rawQuery()));
        return new AwsChunkedInputStream(r.body(), auth, Long.parseLong(r.header("x-amz-decoded-content-length")));
    }

    @Test
    void documentedSignedChunksDecode() throws Exception {
        TestRequest r = docChunkedPut("ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648");
        assertEquals(66824, Integer.parseInt(r.header("Content-Length")), "the documented Content-Length");
        byte[] decoded = drain(decoder(r, SigV4AuthenticatorTest.DOC_TIME));
        assertEquals(66560, decoded.length);
        for (byte b : decoded) {
            assertEquals('a', b);
        }
    }

    @Test
    void badChunkSignatureFailsBeforeEof() throws Exception {
        TestRequest r = docChunkedPut("ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288649");
        AwsChunkedInputStream in = decoder(r, SigV4AuthenticatorTest.DOC_TIME);
        S3BodyException e = assertThrows(S3BodyException.class, () -> drain(in));
        assertEquals("SignatureDoesNotMatch", e.s3().code());
        // it stays failed: a retrying reader never sees a clean end of stream
        assertThrows(S3BodyException.class, in::read);
    }

    @Test
    void decodedLengthMismatchIsIncompleteBody() throws Exception {
        TestRequest r = docChunkedPut("ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648");
        Authentication auth = SigV4AuthenticatorTest.at(SigV4AuthenticatorTest.DOC_TIME).authenticate(r, QueryString.parse(""));
        S3BodyException e = assertThrows(S3BodyException.class,
                () -> drain(new AwsChunkedInputStream(r.body(), auth, 66561)));
        assertEquals("IncompleteBody", e.s3().code());
    }

    @Test
    void truncatedBodyIsIncompleteBody() throws Exception {
        TestRequest r = docChunkedPut("ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648");
        byte[] wire = r.body().readAllBytes();
        r.body(Arrays.copyOf(wire, 70_000 - 4000));
        S3BodyException e = assertThrows(S3BodyException.class, () -> drain(decoder(r, SigV4AuthenticatorTest.DOC_TIME)));
        assertEquals("IncompleteBody", e.s3().code());
    }

    /** Signs a PUT with the SDK's own SigV4 signer, as S3Client does, and returns the request as it goes on the wire. */
    static TestRequest sdkSigned(byte[] data, Instant now, boolean payloadSigning, boolean trailer) throws IOException {
        SdkSigner.Body mode = payloadSigning
                ? (trailer ? SdkSigner.Body.SIGNED_CHUNKS_TRAILER : SdkSigner.Body.SIGNED_CHUNKS)
                : SdkSigner.Body.UNSIGNED_CHUNKS_TRAILER;
        return SdkSigner.sign("PUT", "/bucket/dir/a%2Fb", "", data, mode, now);
    }

    private static String crc32(byte[] data) {
        CRC32 crc = new CRC32();
        crc.update(data);
        return Base64.getEncoder().encodeToString(ByteBuffer.allocate(4).putInt((int) crc.getValue()).array());
    }

    @Test
    void sdkSignedChunksWithTrailerDecodeAndCarryTheChecksum() throws Exception {
        byte[] data = new byte[300_000];
        new Random(1).nextBytes(data);
        Instant now = Instant.now();
        TestRequest r = sdkSigned(data, now, true, true);
        assertEquals("STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER", r.header("x-amz-content-sha256"));
        AwsChunkedInputStream in = decoder(r, now);
        assertArrayEquals(data, drain(in));
        assertEquals(crc32(data), in.trailers().get("x-amz-checksum-crc32"));
    }

    @Test
    void sdkSignedChunksWithoutTrailerDecode() throws Exception {
        byte[] data = new byte[200_001];
        new Random(2).nextBytes(data);
        Instant now = Instant.now();
        TestRequest r = sdkSigned(data, now, true, false);
        assertEquals("STREAMING-AWS4-HMAC-SHA256-PAYLOAD", r.header("x-amz-content-sha256"));
        assertArrayEquals(data, drain(decoder(r, now)));
    }

    @Test
    void sdkUnsignedChunksWithTrailerDecode() throws Exception {
        byte[] data = new byte[1];
        Instant now = Instant.now();
        TestRequest r = sdkSigned(data, now, false, true);
        assertEquals("STREAMING-UNSIGNED-PAYLOAD-TRAILER", r.header("x-amz-content-sha256"));
        AwsChunkedInputStream in = decoder(r, now);
        assertArrayEquals(data, drain(in));
        assertEquals(crc32(data), in.trailers().get("x-amz-checksum-crc32"));
    }

    @Test
    void tamperedSignedTrailerIsSignatureDoesNotMatch() throws Exception {
        byte[] data = "hello".getBytes(StandardCharsets.US_ASCII);
        Instant now = Instant.now();
        TestRequest r = sdkSigned(data, now, true, true);
        String wire = new String(r.body().readAllBytes(), StandardCharsets.ISO_8859_1);
        String good = crc32(data);
        String bad = crc32("hellp".getBytes(StandardCharsets.US_ASCII));
        r.body(wire.replace(good, bad).getBytes(StandardCharsets.ISO_8859_1));
        S3BodyException e = assertThrows(S3BodyException.class, () -> drain(decoder(r, now)));
        assertEquals("SignatureDoesNotMatch", e.s3().code());
    }

    @Test
    void tamperedChunkDataIsSignatureDoesNotMatch() throws Exception {
        byte[] data = new byte[1000];
        Instant now = Instant.now();
        TestRequest r = sdkSigned(data, now, true, false);
        byte[] wire = r.body().readAllBytes();
        wire[200] ^= 1;
        r.body(wire);
        assertEquals("SignatureDoesNotMatch",
                assertThrows(S3BodyException.class, () -> drain(decoder(r, now))).s3().code());
    }

    @Test
    void sdkSignedRequestAuthenticatesWithItsRawPath() throws Exception {
        TestRequest r = sdkSigned(new byte[0], Instant.now(), true, true);
        assertEquals("/bucket/dir/a%2Fb", r.rawPath());
        assertEquals(AK, SigV4AuthenticatorTest.at(Instant.now()).authenticate(r, QueryString.parse("")).accessKeyId());
    }
}
