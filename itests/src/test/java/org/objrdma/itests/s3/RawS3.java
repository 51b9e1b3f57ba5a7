package org.objrdma.itests.s3;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Plain {@code java.net.http} requests to the server under test, signed by {@link SigV4} (or not at all), for
 * the faults no S3 client produces. HTTP/1.1 only: an h2c upgrade offer is no part of what is tested.
 */
final class RawS3 {

    private static final Pattern CODE = Pattern.compile("<Code>([^<]*)</Code>");

    private final S3Target target;
    private final SigV4 signer;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    RawS3(S3Target target) {
        this.target = target;
        this.signer = new SigV4(target);
    }

    SigV4 signer() {
        return signer;
    }

    /** What came back: status, headers, body, and the S3 error {@code Code} if the body is an error document. */
    record Response(int status, java.net.http.HttpHeaders headers, byte[] body) {
        String text() {
            return new String(body, StandardCharsets.UTF_8);
        }

        /** The {@code <Code>} of an S3 XML error body, or null. */
        String code() {
            Matcher m = CODE.matcher(text());
            return m.find() ? m.group(1) : null;
        }

        @Override
        public String toString() {
            return status + " " + text();
        }
    }

    /** {@code path} (already percent-encoded, starting with '/') and {@code query} (encoded, or null) as a URI. */
    URI uri(String path, String query) {
        return URI.create(target.endpoint() + path + (query == null ? "" : "?" + query));
    }

    /** A request signed in the header with the SHA-256 of {@code body} as payload hash, signed now. */
    Response signed(String method, String path, String query, Map<String, String> headers, byte[] body)
            throws Exception {
        return signedAt(method, path, query, headers, body, SigV4.hex(SigV4.sha256(body)), Instant.now());
    }

    /** A request signed in the header with {@code contentSha256} as payload hash, as at {@code signedAt}. */
    Response signedAt(String method, String path, String query, Map<String, String> headers, byte[] body,
            String contentSha256, Instant signedAt) throws Exception {
        URI uri = uri(path, query);
        SigV4.Signed s = signer.sign(method, uri, headers, contentSha256, signedAt);
        return send(method, uri, s.headers(), body);
    }

    /** Sends {@code body} with exactly {@code headers} (no signing). */
    Response send(String method, URI uri, Map<String, String> headers, byte[] body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60))
                .method(method, body.length == 0 && !method.equals("PUT") && !method.equals("POST")
                        ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(b::header);
        HttpResponse<byte[]> r = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
        return new Response(r.statusCode(), r.headers(), r.body());
    }

    /** A GET of {@code uri} as it stands (a presigned URL, or an anonymous request). */
    Response get(URI uri) throws Exception {
        return send("GET", uri, Map.of(), new byte[0]);
    }

    static Map<String, String> headers(String... nameValue) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            m.put(nameValue[i], nameValue[i + 1]);
        }
        return m;
    }
}
