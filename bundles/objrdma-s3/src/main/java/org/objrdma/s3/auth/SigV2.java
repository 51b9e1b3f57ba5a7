package org.objrdma.s3.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3Request;

/**
 * The pieces of AWS Signature Version 2 as S3 defines them (S3 developer guide, "Signing and authenticating REST
 * requests"): the string to sign
 * <pre>
 * VERB \n Content-MD5 \n Content-Type \n Date \n CanonicalizedAmzHeaders CanonicalizedResource
 * </pre>
 * and its HMAC-SHA1 under the secret, in base64. Pure functions; {@link SigV2Authenticator} applies them to a
 * request.
 */
public final class SigV2 {

    /** The Authorization header's scheme: {@code AWS AKID:signature}. */
    public static final String SCHEME = "AWS";

    /**
     * The query parameters that are part of the canonicalized resource: S3's documented sub-resources and
     * response overrides, plus the ones AWS's own V2 signers (botocore's HmacV1) add for the newer S3 features.
     * A parameter outside this set is not signed; one inside it must be (the gateway answers 501 for the features
     * it does not serve, after authentication).
     */
    public static final Set<String> SUB_RESOURCES = Set.of(
            "acl", "delete", "lifecycle", "location", "logging", "notification", "partNumber", "policy",
            "requestPayment", "torrent", "uploadId", "uploads", "versionId", "versioning", "versions", "website",
            "response-content-type", "response-content-language", "response-expires", "response-cache-control",
            "response-content-disposition", "response-content-encoding",
            "accelerate", "cors", "defaultObjectAcl", "tagging", "restore", "storageClass", "replication",
            "analytics", "metrics", "inventory", "select", "select-type", "object-lock");

    private static final Pattern FOLD = Pattern.compile("\\s*\\r?\\n\\s*");

    private SigV2() {
    }

    /** The string to sign; {@code date} is the Date header, empty when x-amz-date is sent, or presigned Expires. */
    public static String stringToSign(String method, String contentMd5, String contentType, String date,
            String canonicalAmzHeaders, String canonicalResource) {
        return method + '\n' + nullToEmpty(contentMd5).strip() + '\n' + nullToEmpty(contentType).strip() + '\n'
                + date + '\n' + canonicalAmzHeaders + canonicalResource;
    }

    /**
     * {@code name:value\n} for every {@code x-amz-*} header, names lower-cased and sorted, the values of a repeated
     * header joined by {@code ,} in arrival order, each value unfolded (a line break and the whitespace around it
     * become one space) and trimmed.
     */
    public static String canonicalAmzHeaders(S3Request request) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, List<String>> e : amzHeaders(request).entrySet()) {
            sb.append(e.getKey()).append(':');
            List<String> values = e.getValue();
            for (int i = 0; i < values.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                sb.append(FOLD.matcher(values.get(i)).replaceAll(" ").strip());
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** Lower-cased {@code x-amz-*} header names to their values, sorted by name. */
    static Map<String, List<String>> amzHeaders(S3Request request) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String name : request.headerNames()) {
            String n = name.toLowerCase(Locale.ROOT);
            if (n.startsWith("x-amz-") && !out.containsKey(n)) {
                out.put(n, request.headers(n));
            }
        }
        return out;
    }

    /**
     * {@code /bucket/key} as the client sent it (still percent-encoded), then the sub-resources present, sorted by
     * name: {@code ?acl}, {@code ?partNumber=2&uploadId=x}. Values are decoded; a parameter sent without {@code =}
     * is signed as its bare name, one with {@code =} keeps it.
     *
     * @param virtualHostBucket the bucket named by the Host header (virtual-host style), or null for path style
     */
    public static String canonicalResource(String virtualHostBucket, String rawPath, QueryString query) {
        StringBuilder sb = new StringBuilder();
        if (virtualHostBucket != null) {
            sb.append('/').append(virtualHostBucket);
        }
        sb.append(rawPath.isEmpty() ? "/" : rawPath);
        List<QueryString.Param> signed = new ArrayList<>();
        for (QueryString.Param p : query.params()) {
            if (SUB_RESOURCES.contains(p.name())) {
                signed.add(p);
            }
        }
        // stable: two values of one name keep their order, as the clients sign them
        signed.sort(Comparator.comparing(QueryString.Param::name));
        for (int i = 0; i < signed.size(); i++) {
            QueryString.Param p = signed.get(i);
            sb.append(i == 0 ? '?' : '&').append(p.name());
            if (p.hasValue()) {
                sb.append('=').append(p.value());
            }
        }
        return sb.toString();
    }

    /** Base64 of HMAC-SHA1(secret, stringToSign). */
    public static String signature(String secret, String stringToSign) {
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
            return Base64.getEncoder().encodeToString(mac.doFinal(stringToSign.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA1 is part of every JDK", e);
        }
    }

    /**
     * Constant-time comparison of the HMAC bytes behind two base64 signatures; a {@code given} that is not base64
     * never matches.
     */
    public static boolean sameSignature(String expected, String given) {
        if (given == null) {
            return false;
        }
        byte[] theirs;
        try {
            theirs = Base64.getDecoder().decode(given.strip());
        } catch (IllegalArgumentException e) {
            return false;
        }
        return MessageDigest.isEqual(Base64.getDecoder().decode(expected), theirs);
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }
}
