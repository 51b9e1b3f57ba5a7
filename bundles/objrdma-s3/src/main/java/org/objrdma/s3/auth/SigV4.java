package org.objrdma.s3.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.UriEncoding;

/**
 * The pieces of AWS Signature Version 4 as S3 defines them: canonical URI, query and headers, the string
 * to sign, the derived signing key and HMAC-SHA256. Pure functions; {@link SigV4Authenticator} applies them
 * to a request.
 */
public final class SigV4 {

    public static final String ALGORITHM = "AWS4-HMAC-SHA256";
    /** SHA-256 of the empty string, hex. */
    public static final String EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    private static final HexFormat HEX = HexFormat.of();

    private SigV4() {
    }

    /**
     * S3's canonical URI: the decoded path encoded once with {@code UriEncode}, slashes kept, no
     * normalization of {@code //} or dot segments.
     */
    public static String canonicalUri(String rawPath) throws S3Exception {
        if (rawPath.isEmpty()) {
            return "/";
        }
        // segment by segment, so an encoded slash (%2F) inside a key stays encoded
        StringBuilder sb = new StringBuilder(rawPath.length() + 16);
        int start = 0;
        while (true) {
            int slash = rawPath.indexOf('/', start);
            String segment = slash < 0 ? rawPath.substring(start) : rawPath.substring(start, slash);
            sb.append(UriEncoding.encode(UriEncoding.decode(segment), false));
            if (slash < 0) {
                return sb.toString();
            }
            sb.append('/');
            start = slash + 1;
        }
    }

    /** Parameters encoded, sorted by name then value, joined with {@code &}; {@code exclude} is left out. */
    public static String canonicalQuery(QueryString query, String exclude) {
        List<String[]> pairs = new ArrayList<>();
        for (QueryString.Param p : query.params()) {
            if (p.name().equals(exclude)) {
                continue;
            }
            pairs.add(new String[] {UriEncoding.encode(p.name(), false), UriEncoding.encode(p.value(), false)});
        }
        pairs.sort((a, b) -> {
            int c = a[0].compareTo(b[0]);
            return c != 0 ? c : a[1].compareTo(b[1]);
        });
        StringBuilder sb = new StringBuilder();
        for (String[] p : pairs) {
            if (!sb.isEmpty()) {
                sb.append('&');
            }
            sb.append(p[0]).append('=').append(p[1]);
        }
        return sb.toString();
    }

    /** A header value as canonicalized: trimmed, inner runs of spaces collapsed to one. */
    public static String canonicalValue(String v) {
        return v.strip().replaceAll("\\s+", " ");
    }

    /**
     * The canonical headers block ({@code name:value\n} per signed header, in {@code signedHeaders}' order,
     * which must be sorted), given each signed header's values.
     */
    public static String canonicalHeaders(List<String> signedHeaders, Map<String, List<String>> values) {
        StringBuilder sb = new StringBuilder();
        for (String name : signedHeaders) {
            List<String> vs = values.getOrDefault(name, List.of());
            sb.append(name).append(':');
            for (int i = 0; i < vs.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(canonicalValue(vs.get(i)));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    public static String canonicalRequest(String method, String canonicalUri, String canonicalQuery,
            String canonicalHeaders, String signedHeaders, String payloadHash) {
        return method + '\n' + canonicalUri + '\n' + canonicalQuery + '\n' + canonicalHeaders + '\n'
                + signedHeaders + '\n' + payloadHash;
    }

    public static String stringToSign(String amzDate, String scope, String canonicalRequest) {
        return ALGORITHM + '\n' + amzDate + '\n' + scope + '\n' + sha256Hex(canonicalRequest);
    }

    /** {@code kSigning} from the secret and the scope's date, region and service. */
    public static byte[] signingKey(String secret, String date, String region, String service) {
        byte[] k = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), date);
        k = hmac(k, region);
        k = hmac(k, service);
        return hmac(k, "aws4_request");
    }

    public static String signature(byte[] signingKey, String stringToSign) {
        return HEX.formatHex(hmac(signingKey, stringToSign));
    }

    public static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
        }
    }

    public static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    public static String sha256Hex(String s) {
        return HEX.formatHex(sha256().digest(s.getBytes(StandardCharsets.UTF_8)));
    }

    public static String hex(byte[] b) {
        return HEX.formatHex(b);
    }

    /** Constant-time comparison of two hex signatures (case-sensitive, as AWS sends lower case). */
    public static boolean sameSignature(String expected, String given) {
        return given != null && MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
                given.getBytes(StandardCharsets.US_ASCII));
    }

    /** Lower-cased header name to its values, for the names in {@code signed}. */
    static Map<String, List<String>> signedHeaderValues(org.objrdma.s3.S3Request request, List<String> signed) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String name : signed) {
            out.put(name, request.headers(name));
        }
        return out;
    }
}
