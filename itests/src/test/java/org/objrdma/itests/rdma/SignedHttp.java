package org.objrdma.itests.rdma;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * S3 requests from the client JVM: signed by the AWS SDK v2's own SigV4 signer ({@link AwsV4HttpSigner}, as
 * S3Client configures it: path style, no double encoding) and sent with {@code java.net.http}. A request with a
 * body signs its SHA-256; one without signs {@code UNSIGNED-PAYLOAD}, as RDMA requests must.
 */
final class SignedHttp {

    /** An access key and its secret. */
    record Credential(String accessKey, String secret) {
    }

    private final String host;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    SignedHttp(String host, int port) {
        this.host = host;
        this.port = port;
    }

    String host() {
        return host;
    }

    int port() {
        return port;
    }

    /**
     * Sends {@code method path?rawQuery} signed as {@code who}, with {@code signed} headers inside the signature and
     * {@code unsigned} ones added after signing (for the refusal rows).
     */
    HttpResponse<byte[]> send(Credential who, String method, String path, String rawQuery, byte[] body,
            Map<String, String> signed, Map<String, String> unsigned) throws IOException, InterruptedException {
        return http.send(request(who, method, path, rawQuery, body, signed, unsigned),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    /** As {@link #send}, without waiting for the answer. */
    java.util.concurrent.CompletableFuture<HttpResponse<byte[]>> sendAsync(Credential who, String method, String path,
            String rawQuery, byte[] body, Map<String, String> signed) {
        return http.sendAsync(request(who, method, path, rawQuery, body, signed, Map.of()),
                HttpResponse.BodyHandlers.ofByteArray());
    }

    /**
     * Writes a signed request without a body on a socket of its own and returns at once, the bytes handed to the
     * kernel: the caller may freeze this JVM right after and the gateway still gets the whole request. Read the
     * answer with {@link #readStatus}.
     */
    java.net.Socket sendRaw(Credential who, String method, String path, String rawQuery, Map<String, String> signed)
            throws IOException {
        SdkHttpRequest out = sign(who, method, path, rawQuery, null, signed);
        StringBuilder b = new StringBuilder(method).append(' ').append(path)
                .append(out.encodedQueryParameters().map(q -> "?" + q).orElse("")).append(" HTTP/1.1\r\n");
        b.append("Host: ").append(host).append(':').append(port).append("\r\n");
        for (Map.Entry<String, List<String>> h : out.headers().entrySet()) {
            if (!h.getKey().equalsIgnoreCase("Host")) {
                h.getValue().forEach(v -> b.append(h.getKey()).append(": ").append(v).append("\r\n"));
            }
        }
        b.append("Content-Length: 0\r\nConnection: close\r\n\r\n");
        java.net.Socket socket = new java.net.Socket(host, port);
        socket.getOutputStream().write(b.toString().getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        socket.getOutputStream().flush();
        return socket;
    }

    /** The status line and headers of the answer on {@code socket} (the body is not read), then closes it. */
    static String readStatus(java.net.Socket socket) throws IOException {
        try (socket) {
            socket.setSoTimeout(120_000);
            java.io.InputStream in = socket.getInputStream();
            StringBuilder head = new StringBuilder();
            for (int c; (c = in.read()) >= 0; ) {
                head.append((char) c);
                if (head.toString().endsWith("\r\n\r\n")) {
                    break;
                }
            }
            return head.toString();
        }
    }

    private SdkHttpRequest sign(Credential who, String method, String path, String rawQuery, byte[] body,
            Map<String, String> signed) {
        boolean hasBody = body != null && body.length > 0;
        // the SDK signs UNSIGNED-PAYLOAD only for https; the protocol is for signing only, the bytes go over http
        SdkHttpRequest.Builder b = SdkHttpRequest.builder().method(SdkHttpMethod.fromValue(method))
                .protocol(hasBody ? "http" : "https").host(host).port(port).encodedPath(path);
        signed.forEach(b::putHeader);
        if (!rawQuery.isEmpty()) {
            for (String pair : rawQuery.split("&")) {
                int eq = pair.indexOf('=');
                b.appendRawQueryParameter(eq < 0 ? pair : pair.substring(0, eq), eq < 0 ? null : pair.substring(eq + 1));
            }
        }
        return AwsV4HttpSigner.create().sign(s -> s
                .identity(AwsCredentialsIdentity.create(who.accessKey(), who.secret()))
                .request(b.build())
                .payload(hasBody ? ContentStreamProvider.fromByteArray(body) : null)
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                .putProperty(AwsV4HttpSigner.CHUNK_ENCODING_ENABLED, false)
                .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, hasBody)).request();
    }

    private HttpRequest request(Credential who, String method, String path, String rawQuery, byte[] body,
            Map<String, String> signed, Map<String, String> unsigned) {
        boolean hasBody = body != null && body.length > 0;
        SdkHttpRequest out = sign(who, method, path, rawQuery, body, signed);
        String uri = "http://" + host + ":" + port + path + out.encodedQueryParameters().map(q -> "?" + q).orElse("");
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofMinutes(5));
        for (Map.Entry<String, List<String>> h : out.headers().entrySet()) {
            if (!h.getKey().equalsIgnoreCase("Host")) { // java.net.http sends the same Host itself
                h.getValue().forEach(v -> r.header(h.getKey(), v));
            }
        }
        unsigned.forEach(r::header);
        HttpRequest.BodyPublisher publisher = hasBody ? HttpRequest.BodyPublishers.ofByteArray(body)
                : HttpRequest.BodyPublishers.noBody();
        return r.method(method, publisher).build();
    }
}
