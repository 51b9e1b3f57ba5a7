package org.objrdma.s3.auth;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.S3Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verifies AWS Signature Version 2 ({@link SigV2}) in the {@code Authorization: AWS AKID:signature} header or
 * presigned in the query ({@code AWSAccessKeyId}, {@code Signature}, {@code Expires}), with S3's errors. The body
 * is not covered by a V2 signature: only its Content-MD5 (signed, checked against the bytes while they are
 * stored) and, if the client sends one, a hex {@code x-amz-content-sha256} protect it.
 */
public final class SigV2Authenticator {

    private static final Logger LOG = LoggerFactory.getLogger(SigV2Authenticator.class);
    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT);

    private final Duration maxSkew;
    private final Clock clock;
    private final CredentialSource credentials;

    public SigV2Authenticator(Duration maxSkew, Clock clock, CredentialSource credentials) {
        this.maxSkew = Objects.requireNonNull(maxSkew, "maxSkew");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.credentials = Objects.requireNonNull(credentials, "credentials");
    }

    /**
     * Whether the request is signed with V2: an {@code Authorization: AWS ...} header, or (without any
     * Authorization header or SigV4 query) an {@code AWSAccessKeyId} or {@code Signature} query parameter.
     */
    public static boolean isSigV2(S3Request request, QueryString query) {
        String authorization = request.header("Authorization");
        if (authorization != null) {
            return authorization.startsWith(SigV2.SCHEME + " ");
        }
        return !query.has("X-Amz-Algorithm") && !query.has("X-Amz-Signature")
                && (query.has("AWSAccessKeyId") || query.has("Signature"));
    }

    /**
     * @param virtualHostBucket the bucket the Host header names (virtual-host style), or null for path style
     */
    public Authentication authenticate(S3Request request, QueryString query, String virtualHostBucket)
            throws S3Exception {
        String authorization = request.header("Authorization");
        if (authorization != null) {
            if (query.has("Signature") || query.has("AWSAccessKeyId") || query.has("X-Amz-Algorithm")) {
                throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Only one auth mechanism allowed; only the "
                        + "Signature query parameter or the Authorization header may be present");
            }
            return headerAuth(request, query, virtualHostBucket, authorization);
        }
        return presignedAuth(request, query, virtualHostBucket);
    }

    private Authentication headerAuth(S3Request request, QueryString query, String virtualHostBucket,
            String authorization) throws S3Exception {
        String credential = authorization.substring(SigV2.SCHEME.length() + 1).strip();
        int colon = credential.indexOf(':');
        if (colon <= 0 || colon == credential.length() - 1) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
                    "AWS authorization header is invalid. Expected AwsAccessKeyId:signature");
        }
        String accessKeyId = credential.substring(0, colon);
        String signature = credential.substring(colon + 1);
        String amzDate = request.header("x-amz-date");
        String dateHeader = request.header("Date");
        String sent = amzDate != null ? amzDate : dateHeader;
        if (sent == null) {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
                    "AWS authentication requires a valid Date or x-amz-date header");
        }
        Instant date = parseDate(sent.strip());
        String secret = secretOf(accessKeyId);
        PayloadMode mode = payloadMode(request);
        // S3: with x-amz-date the Date line of the string to sign is empty (x-amz-date is signed as an amz header);
        // botocore's V2 signer puts its Date header there all the same. Either way x-amz-date is signed and is the
        // time checked below, so accepting that form trusts nothing more.
        List<String> dateLines = amzDate == null ? List.of(dateHeader.strip())
                : dateHeader == null ? List.of("") : List.of("", dateHeader.strip());
        verify(request, query, virtualHostBucket, dateLines, secret, signature);
        Instant now = clock.instant();
        if (Duration.between(date, now).abs().compareTo(maxSkew) > 0) {
            throw new S3Exception(S3ErrorCode.REQUEST_TIME_TOO_SKEWED, "The difference between the request time ("
                    + sent + ") and the server's time (" + DateTimeFormatter.RFC_1123_DATE_TIME.format(
                            now.atOffset(ZoneOffset.UTC)) + ") is larger than " + maxSkew.toSeconds() + " s");
        }
        return authentication(request, accessKeyId, mode, sent.strip(), signature);
    }

    private Authentication presignedAuth(S3Request request, QueryString query, String virtualHostBucket)
            throws S3Exception {
        String accessKeyId = query.get("AWSAccessKeyId");
        String signature = query.get("Signature");
        String expiresText = query.get("Expires");
        if (isEmpty(accessKeyId) || isEmpty(signature) || isEmpty(expiresText)) {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
                    "Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters");
        }
        long expires;
        try {
            expires = Long.parseLong(expiresText);
        } catch (NumberFormatException e) {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
                    "Invalid date (should be seconds since epoch): " + expiresText);
        }
        String secret = secretOf(accessKeyId);
        PayloadMode mode = payloadMode(request);
        verify(request, query, virtualHostBucket, List.of(expiresText), secret, signature);
        long now = clock.instant().getEpochSecond();
        if (now > expires) {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
                    "Request has expired (Expires " + expires + ", server time " + now + ")");
        }
        return authentication(request, accessKeyId, mode, expiresText, signature);
    }

    private static void verify(S3Request request, QueryString query, String virtualHostBucket, List<String> dates,
            String secret, String signature) throws S3Exception {
        String amzHeaders = SigV2.canonicalAmzHeaders(request);
        List<String> resources = new ArrayList<>(2);
        resources.add(SigV2.canonicalResource(virtualHostBucket, request.rawPath(), query));
        if (virtualHostBucket == null && request.rawPath().lastIndexOf('/') == 0 && request.rawPath().length() > 1) {
            // a path-style request on a bucket itself: botocore signs the resource as "/bucket/" (S3's form for a
            // bucket) while it sends "/bucket"; both name the one bucket
            resources.add(SigV2.canonicalResource(null, request.rawPath() + "/", query));
        }
        String contentType = request.header("Content-Type");
        String toSign = null;
        List<Map<String, List<String>>> variants = contentType == null ? List.of(Map.of())
                : ContentTypeVariants.of(Map.of("content-type", List.of(contentType)));
        for (String date : dates) {
            for (String resource : resources) {
                for (Map<String, List<String>> candidate : variants) {
                    List<String> type = candidate.get("content-type");
                    toSign = SigV2.stringToSign(request.method(), request.header("Content-MD5"),
                            type == null ? null : type.get(0), date, amzHeaders, resource);
                    if (SigV2.sameSignature(SigV2.signature(secret, toSign), signature)) {
                        return;
                    }
                }
            }
        }
        // for finding why a client's signature differs: the string we signed (never the key)
        if (LOG.isDebugEnabled()) {
            LOG.debug("SigV2 mismatch; our string to sign:\n{}", toSign);
        }
        throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH);
    }

    /**
     * UNSIGNED unless the client declared a hex {@code x-amz-content-sha256} (signed, as every x-amz-* header is in
     * V2), which is then checked; aws-chunked needs SigV4's chunk signatures.
     */
    private static PayloadMode payloadMode(S3Request request) throws S3Exception {
        String declared = request.header("x-amz-content-sha256");
        if (declared == null) {
            return PayloadMode.UNSIGNED;
        }
        PayloadMode mode = SigV4Authenticator.payloadMode(declared.strip());
        if (mode.chunked()) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST,
                    "An aws-chunked body (x-amz-content-sha256 " + declared.strip() + ") needs AWS Signature Version 4");
        }
        return mode;
    }

    private static Authentication authentication(S3Request request, String accessKeyId, PayloadMode mode, String date,
            String signature) {
        List<String> signed = new ArrayList<>(SigV2.amzHeaders(request).keySet());
        for (String standard : List.of("content-md5", "content-type", "date")) {
            if (request.header(standard) != null) {
                signed.add(standard);
            }
        }
        signed.sort(null);
        String sha256 = mode == PayloadMode.SIGNED_HASH
                ? request.header("x-amz-content-sha256").strip().toLowerCase(Locale.ROOT) : null;
        return new Authentication(accessKeyId, mode, sha256, null, date, null, signature, signed, SignatureVersion.V2);
    }

    /** RFC 1123 ({@code Thu, 03 Dec 2026 10:41:46 GMT}), or the ISO 8601 basic form some clients send. */
    static Instant parseDate(String text) throws S3Exception {
        try {
            // the day name is left out: S3 does not check that it fits the date (s3-tests sends ones that do not)
            int comma = text.indexOf(", ");
            Instant t = ZonedDateTime.parse(comma < 0 ? text : text.substring(comma + 2),
                    DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            if (t.isBefore(Instant.EPOCH)) {
                // S3 takes a date before 1970 for no date at all (AccessDenied), not for a skewed one
                throw new DateTimeParseException("before the epoch", text, 0);
            }
            return t;
        } catch (DateTimeParseException e) {
            try {
                return LocalDateTime.parse(text, AMZ_DATE).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException e2) {
                throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "AWS authentication requires a valid Date or "
                        + "x-amz-date header (RFC 1123, e.g. 'Thu, 03 Dec 2026 10:41:46 GMT'), not '" + text + "'");
            }
        }
    }

    private String secretOf(String accessKeyId) throws S3Exception {
        return credentials.secretKey(accessKeyId).orElseThrow(() -> new S3Exception(S3ErrorCode.INVALID_ACCESS_KEY_ID));
    }

    private static boolean isEmpty(String s) {
        return s == null || s.isEmpty();
    }
}
