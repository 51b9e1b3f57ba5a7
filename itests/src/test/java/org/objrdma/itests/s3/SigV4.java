package org.objrdma.itests.s3;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * A small AWS Signature Version 4 signer for requests no S3 client will send: a chosen clock, a tampered
 * chunk signature, a presigned URL that has already expired. Hand-written (the SDK's signer hides the
 * chunk stream and fills in headers itself); the suite's SDK and CLI tests check the real clients' signing.
 */
final class SigV4 {

    static final String UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";
    static final String STREAMING_SIGNED = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD";
    static final String STREAMING_SIGNED_TRAILER = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER";
    static final String STREAMING_UNSIGNED_TRAILER = "STREAMING-UNSIGNED-PAYLOAD-TRAILER";
    private static final String ALGORITHM = "AWS4-HMAC-SHA256";
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC);
    private static final String EMPTY_SHA256 = hex(sha256(new byte[0]));

    private final S3Target target;

    SigV4(S3Target target) {
        this.target = target;
    }

    /** A signed request: the headers to send besides Host (which the HTTP client derives from the URI). */
    record Signed(Map<String, String> headers, String signature, String amzDate, String scope) {
    }

    /**
     * Signs {@code method uri} at {@code now} with {@code headers} (each signed) and the payload hash
     * {@code contentSha256} (hex, or one of the UNSIGNED/STREAMING constants), for the Authorization header.
     */
    Signed sign(String method, URI uri, Map<String, String> headers, String contentSha256, Instant now) {
        String amzDate = AMZ_DATE.format(now);
        String scope = amzDate.substring(0, 8) + "/" + target.region() + "/s3/aws4_request";
        Map<String, String> signedHeaders = new TreeMap<>();
        headers.forEach((k, v) -> signedHeaders.put(k.toLowerCase(java.util.Locale.ROOT), v.trim()));
        signedHeaders.put("host", uri.getRawAuthority());
        signedHeaders.put("x-amz-date", amzDate);
        signedHeaders.put("x-amz-content-sha256", contentSha256);
        String names = String.join(";", signedHeaders.keySet());
        String signature = signature(method, uri.getRawPath(), canonicalQuery(uri.getRawQuery()), signedHeaders,
                names, contentSha256, amzDate, scope);
        Map<String, String> out = new LinkedHashMap<>(headers);
        out.put("x-amz-date", amzDate);
        out.put("x-amz-content-sha256", contentSha256);
        out.put("Authorization", ALGORITHM + " Credential=" + target.accessKey() + "/" + scope + ", SignedHeaders="
                + names + ", Signature=" + signature);
        return new Signed(out, signature, amzDate, scope);
    }

    /** A presigned URL for {@code method uri} signed at {@code now}, valid for {@code expiresSeconds}. */
    URI presign(String method, URI uri, Instant now, long expiresSeconds) {
        String amzDate = AMZ_DATE.format(now);
        String scope = amzDate.substring(0, 8) + "/" + target.region() + "/s3/aws4_request";
        String query = (uri.getRawQuery() == null ? "" : uri.getRawQuery() + "&")
                + "X-Amz-Algorithm=" + ALGORITHM
                + "&X-Amz-Credential=" + encode(target.accessKey() + "/" + scope, true)
                + "&X-Amz-Date=" + amzDate
                + "&X-Amz-Expires=" + expiresSeconds
                + "&X-Amz-SignedHeaders=host";
        Map<String, String> headers = new TreeMap<>(Map.of("host", uri.getRawAuthority()));
        String signature = signature(method, uri.getRawPath(), canonicalQuery(query), headers, "host",
                UNSIGNED_PAYLOAD, amzDate, scope);
        return URI.create(uri.getScheme() + "://" + uri.getRawAuthority() + uri.getRawPath() + "?" + query
                + "&X-Amz-Signature=" + signature);
    }

    /**
     * The aws-chunked body of {@code data} in {@code chunkSize} chunks, each chunk signed in the chain that
     * starts at the request's {@code seed} signature ({@code STREAMING-AWS4-HMAC-SHA256-PAYLOAD}).
     */
    byte[] signedChunks(Signed seed, byte[] data, int chunkSize) {
        return signedChunks(seed, data, chunkSize, null, null);
    }

    /**
     * As {@link #signedChunks(Signed, byte[], int)}, then (if {@code trailerName} is not null) one trailer line
     * and its {@code x-amz-trailer-signature} ({@code STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER}, what the SDK
     * sends by default).
     */
    byte[] signedChunks(Signed seed, byte[] data, int chunkSize, String trailerName, String trailerValue) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        String previous = seed.signature();
        for (int offset = 0; offset < data.length; offset += chunkSize) {
            byte[] chunk = java.util.Arrays.copyOfRange(data, offset, Math.min(data.length, offset + chunkSize));
            previous = chunkSignature(seed, previous, chunk);
            body.writeBytes((Integer.toHexString(chunk.length) + ";chunk-signature=" + previous + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            body.writeBytes(chunk);
            body.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        String last = chunkSignature(seed, previous, new byte[0]);
        body.writeBytes(("0;chunk-signature=" + last + "\r\n").getBytes(StandardCharsets.US_ASCII));
        if (trailerName != null) {
            String trailer = trailerName + ":" + trailerValue;
            String stringToSign = "AWS4-HMAC-SHA256-TRAILER\n" + seed.amzDate() + "\n" + seed.scope() + "\n" + last
                    + "\n" + hex(sha256((trailer + "\n").getBytes(StandardCharsets.US_ASCII)));
            String signature = hex(hmac(signingKey(seed.amzDate().substring(0, 8)), stringToSign));
            body.writeBytes((trailer + "\r\nx-amz-trailer-signature:" + signature + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
        }
        body.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        return body.toByteArray();
    }

    private String chunkSignature(Signed seed, String previous, byte[] chunk) {
        String stringToSign = "AWS4-HMAC-SHA256-PAYLOAD\n" + seed.amzDate() + "\n" + seed.scope() + "\n" + previous
                + "\n" + EMPTY_SHA256 + "\n" + hex(sha256(chunk));
        return hex(hmac(signingKey(seed.amzDate().substring(0, 8)), stringToSign));
    }

    /** The unsigned aws-chunked body of {@code data} with one trailer line {@code name:value}. */
    static byte[] unsignedChunksWithTrailer(byte[] data, String trailerName, String trailerValue) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes((Integer.toHexString(data.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
        body.writeBytes(data);
        body.writeBytes(("\r\n0\r\n" + trailerName + ":" + trailerValue + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        return body.toByteArray();
    }

    private String signature(String method, String path, String canonicalQuery, Map<String, String> headers,
            String names, String payloadHash, String amzDate, String scope) {
        StringBuilder canonical = new StringBuilder()
                .append(method).append('\n')
                .append(path.isEmpty() ? "/" : path).append('\n')
                .append(canonicalQuery).append('\n');
        headers.forEach((k, v) -> canonical.append(k).append(':').append(v).append('\n'));
        canonical.append('\n').append(names).append('\n').append(payloadHash);
        String stringToSign = ALGORITHM + "\n" + amzDate + "\n" + scope + "\n"
                + hex(sha256(canonical.toString().getBytes(StandardCharsets.UTF_8)));
        return hex(hmac(signingKey(amzDate.substring(0, 8)), stringToSign));
    }

    private byte[] signingKey(String day) {
        byte[] k = hmac(("AWS4" + target.secretKey()).getBytes(StandardCharsets.UTF_8), day);
        k = hmac(k, target.region());
        k = hmac(k, "s3");
        return hmac(k, "aws4_request");
    }

    /** Query parameters sorted by name then value, as they were encoded on the wire. */
    private static String canonicalQuery(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return "";
        }
        List<String[]> pairs = new ArrayList<>();
        for (String p : rawQuery.split("&")) {
            int eq = p.indexOf('=');
            pairs.add(eq < 0 ? new String[] {p, ""} : new String[] {p.substring(0, eq), p.substring(eq + 1)});
        }
        pairs.sort((a, b) -> a[0].equals(b[0]) ? a[1].compareTo(b[1]) : a[0].compareTo(b[0]));
        StringBuilder s = new StringBuilder();
        for (String[] p : pairs) {
            s.append(s.isEmpty() ? "" : "&").append(p[0]).append('=').append(p[1]);
        }
        return s.toString();
    }

    /** RFC 3986 percent-encoding as SigV4 wants it; {@code slash} also encodes '/'. */
    static String encode(String s, boolean slash) {
        StringBuilder out = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'
                    || c == '.' || c == '~' || (c == '/' && !slash)) {
                out.append(c);
            } else {
                out.append('%').append(HexFormat.of().withUpperCase().toHexDigits(b));
            }
        }
        return out.toString();
    }

    static byte[] sha256(byte[] data) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(data);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
