package org.objrdma.s3;

import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.checksums.DefaultChecksumAlgorithm;
import software.amazon.awssdk.checksums.spi.ChecksumAlgorithm;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * Signs test requests with the AWS SDK v2's own SigV4 signer, configured as S3Client configures it, and
 * turns them into {@link TestRequest}s as they would arrive on the wire.
 */
public final class SdkSigner {

    /** How the body goes: as the SDK's defaults (signed chunks + CRC32 trailer), WHEN_REQUIRED, or plain. */
    public enum Body { SIGNED_CHUNKS_TRAILER, SIGNED_CHUNKS, UNSIGNED_CHUNKS_TRAILER, SIGNED_HASH, UNSIGNED }

    public static final String AK = "AKIAIOSFODNN7EXAMPLE";
    public static final String SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

    private SdkSigner() {
    }

    /**
     * @param encodedPath  the path as sent (percent-encoded)
     * @param rawQuery     the query as sent, or empty
     * @param headers      extra headers (name, value, ...)
     */
    public static TestRequest sign(String method, String encodedPath, String rawQuery, byte[] body, Body mode,
            Instant now, String... headers) throws IOException {
        return signFor("127.0.0.1", method, encodedPath, rawQuery, body, mode, now, headers);
    }

    /** As {@link #sign}, for a request to {@code host} (port 8181), e.g. a virtual-host-style bucket. */
    public static TestRequest signFor(String host, String method, String encodedPath, String rawQuery, byte[] body,
            Body mode, Instant now, String... headers) throws IOException {
        return signAs(AK, SECRET, host, method, encodedPath, rawQuery, body, mode, now, headers);
    }

    /** As {@link #signFor}, with another credential. */
    public static TestRequest signAs(String accessKey, String secret, String host, String method, String encodedPath,
            String rawQuery, byte[] body, Body mode, Instant now, String... headers) throws IOException {
        SdkHttpRequest.Builder b = SdkHttpRequest.builder().method(SdkHttpMethod.fromValue(method))
                .protocol(mode == Body.UNSIGNED_CHUNKS_TRAILER || mode == Body.UNSIGNED ? "https" : "http")
                .host(host).port(8181).encodedPath(encodedPath);
        if (body != null) {
            b.putHeader("Content-Length", String.valueOf(body.length));
        }
        for (int i = 0; i < headers.length; i += 2) {
            b.appendHeader(headers[i], headers[i + 1]);
        }
        for (QueryString.Param p : parse(rawQuery)) {
            b.appendRawQueryParameter(p.name(), p.hasValue() ? p.value() : null);
        }
        boolean chunked = mode == Body.SIGNED_CHUNKS_TRAILER || mode == Body.SIGNED_CHUNKS
                || mode == Body.UNSIGNED_CHUNKS_TRAILER;
        ChecksumAlgorithm trailer = mode == Body.SIGNED_CHUNKS_TRAILER || mode == Body.UNSIGNED_CHUNKS_TRAILER
                ? DefaultChecksumAlgorithm.CRC32 : null;
        SignedRequest signed = AwsV4HttpSigner.create().sign(s -> {
            s.identity(AwsCredentialsIdentity.create(accessKey, secret))
                    .request(b.build())
                    .payload(body == null ? null : ContentStreamProvider.fromByteArray(body))
                    .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                    .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                    .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                    .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                    .putProperty(AwsV4HttpSigner.CHUNK_ENCODING_ENABLED, chunked && body != null)
                    .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, mode != Body.UNSIGNED
                            && mode != Body.UNSIGNED_CHUNKS_TRAILER)
                    .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(now, ZoneOffset.UTC));
            if (trailer != null) {
                s.putProperty(AwsV4HttpSigner.CHECKSUM_ALGORITHM, trailer);
            }
        });
        return toTestRequest(host, signed.request(),
                signed.payload().isPresent() ? signed.payload().get().newStream().readAllBytes() : new byte[0]);
    }

    /** A presigned GET URL, as S3Presigner makes it. */
    public static TestRequest presign(String method, String encodedPath, Instant now, java.time.Duration expiry) {
        SdkHttpRequest http = SdkHttpRequest.builder().method(SdkHttpMethod.fromValue(method)).protocol("http")
                .host("127.0.0.1").port(8181).encodedPath(encodedPath).build();
        SignedRequest signed = AwsV4HttpSigner.create().sign(s -> s
                .identity(AwsCredentialsIdentity.create(AK, SECRET))
                .request(http)
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)
                .putProperty(AwsV4HttpSigner.AUTH_LOCATION, AwsV4FamilyHttpSigner.AuthLocation.QUERY_STRING)
                .putProperty(AwsV4HttpSigner.EXPIRATION_DURATION, expiry)
                .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(now, ZoneOffset.UTC)));
        return toTestRequest("127.0.0.1", signed.request(), new byte[0]);
    }

    private static TestRequest toTestRequest(String host, SdkHttpRequest out, byte[] body) {
        StringBuilder q = new StringBuilder();
        out.encodedQueryParameters().ifPresent(q::append);
        TestRequest r = new TestRequest(out.method().name(), out.encodedPath(), q.toString());
        r.header("Host", host + ":8181");
        for (Map.Entry<String, List<String>> h : out.headers().entrySet()) {
            if (!h.getKey().equalsIgnoreCase("Host")) {
                for (String v : h.getValue()) {
                    r.header(h.getKey(), v);
                }
            }
        }
        return r.body(body);
    }

    private static List<QueryString.Param> parse(String rawQuery) {
        try {
            return QueryString.parse(rawQuery).params();
        } catch (S3Exception e) {
            throw new IllegalArgumentException(e);
        }
    }
}
