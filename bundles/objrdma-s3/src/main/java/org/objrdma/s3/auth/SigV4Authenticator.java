package org.objrdma.s3.auth;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;
import org.objrdma.s3.QueryString;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.S3Request;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Verifies AWS SigV4 on a request, in the {@code Authorization} header or presigned in the query. Refuses
 * anonymous requests and SigV2, an Authorization header with a repeated or unknown component, and every
 * {@code x-amz-*} header the signature does not cover ({@link UnsignedAmzHeaders}). Only the header/query part: the
 * body is verified while it streams by {@link RequestBodies}.
 */
public final class SigV4Authenticator {

    private static final Logger LOG = LoggerFactory.getLogger(SigV4Authenticator.class);

    /** The longest presigned-URL lifetime S3 allows: 7 days. */
    public static final long MAX_PRESIGN_SECONDS = 7L * 24 * 3600;

    private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'", Locale.ROOT);
    private static final Pattern HEX64 = Pattern.compile("[0-9a-fA-F]{64}");
    private static final Pattern HEADER_NAME = Pattern.compile("[a-z0-9!#$%&'*+.^_`|~-]+");

    private final String region;
    private final Duration maxSkew;
    private final Clock clock;
    private final CredentialSource credentials;

    public SigV4Authenticator(String region, Duration maxSkew, Clock clock, CredentialSource credentials) {
        this.region = Objects.requireNonNull(region, "region");
        this.maxSkew = Objects.requireNonNull(maxSkew, "maxSkew");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.credentials = Objects.requireNonNull(credentials, "credentials");
    }

    public Authentication authenticate(S3Request request, QueryString query) throws S3Exception {
        return authenticate(request, query, false);
    }

    /**
     * @param controlRoute the request is one of the hipobj-rc-v2 control POSTs ({@code /.hipobj-rc/*}): its
     *                     Authorization header may name the credential scope service {@code hipobj} (as hipObject's
     *                     reference client signs) besides {@code s3}, and may leave {@code x-amz-content-sha256} out,
     *                     the payload then being the empty body (its SHA-256 is what was signed; a body is refused).
     *                     The signature is verified with the principal's secret either way; presigned URLs and every
     *                     other route keep requiring service {@code s3} and the header.
     */
    public Authentication authenticate(S3Request request, QueryString query, boolean controlRoute) throws S3Exception {
        String authorization = request.header("Authorization");
        boolean presigned = query.has("X-Amz-Algorithm") || query.has("X-Amz-Signature");
        if (authorization != null && presigned) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
                    "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter or the Authorization header may be present");
        }
        if (authorization != null) {
            if (request.headers("Authorization").size() > 1) {
                throw malformedHeader("the request carries more than one Authorization header");
            }
            if (authorization.startsWith("AWS ")) {
                throw sigV2();
            }
            return headerAuth(request, query, authorization, controlRoute);
        }
        if (presigned) {
            return presignedAuth(request, query);
        }
        if (query.has("AWSAccessKeyId") || query.has("Signature")) {
            throw sigV2();
        }
        throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
                "Anonymous requests are not allowed: sign the request with AWS Signature Version 4");
    }

    private static S3Exception sigV2() {
        return new S3Exception(S3ErrorCode.INVALID_REQUEST,
                "The authorization mechanism you have provided is not supported (AWS Signature Version 2). "
                        + "Please use AWS4-HMAC-SHA256.");
    }

    private Authentication headerAuth(S3Request request, QueryString query, String authorization, boolean controlRoute)
            throws S3Exception {
        if (!authorization.startsWith(SigV4.ALGORITHM + " ")) {
            throw new S3Exception(S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED,
                    "The authorization header must start with " + SigV4.ALGORITHM);
        }
        String credential = null;
        String signedHeaders = null;
        String signature = null;
        // each component exactly once: a second SignedHeaders= (or Credential=, Signature=) would let one reader of
        // the header take the first and another the last; the one parsed here travels on in Authentication
        for (String part : authorization.substring(SigV4.ALGORITHM.length() + 1).split(",")) {
            String p = part.strip();
            int eq = p.indexOf('=');
            if (eq < 0) {
                throw malformedHeader("component '" + p + "' has no '='");
            }
            String name = p.substring(0, eq);
            String value = p.substring(eq + 1);
            switch (name) {
                case "Credential" -> credential = once(name, credential, value);
                case "SignedHeaders" -> signedHeaders = once(name, signedHeaders, value);
                case "Signature" -> signature = once(name, signature, value);
                default -> throw malformedHeader("unknown component '" + name + "'");
            }
        }
        if (credential == null || signedHeaders == null || signature == null) {
            throw malformedHeader("Credential, SignedHeaders and Signature are all required");
        }
        String amzDate = request.header("x-amz-date");
        if (amzDate == null) {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED,
                    "AWS authentication requires a valid x-amz-date header");
        }
        Instant date = parseDate(amzDate, S3ErrorCode.ACCESS_DENIED, "x-amz-date");
        Scope scope = Scope.parse(credential, S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED, region,
                controlRoute ? CONTROL_SERVICES : S3_ONLY);
        scope.checkDate(amzDate, S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED);
        String secret = secretOf(scope.accessKeyId());

        String contentSha256 = request.header("x-amz-content-sha256");
        if (contentSha256 == null && controlRoute) {
            refuseBody(request);
            contentSha256 = SigV4.EMPTY_SHA256;
        }
        if (contentSha256 == null) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST,
                    "Missing required header for this request: x-amz-content-sha256 (curl --aws-sigv4 does not send "
                            + "it: add -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD')");
        }
        PayloadMode mode = payloadMode(contentSha256);
        List<String> signed = signedHeaderList(signedHeaders, S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED);
        byte[] key = SigV4.signingKey(secret, scope.date(), scope.region(), scope.service());
        verify(request, SigV4.canonicalQuery(query, null), signed, signedHeaders, contentSha256, key, amzDate,
                scope.text(), signature);
        UnsignedAmzHeaders.refuse(request, signed);
        Instant now = clock.instant();
        if (Duration.between(date, now).abs().compareTo(maxSkew) > 0) {
            throw new S3Exception(S3ErrorCode.REQUEST_TIME_TOO_SKEWED, "The difference between the request time ("
                    + amzDate + ") and the server's time (" + AMZ_DATE.format(now.atOffset(ZoneOffset.UTC))
                    + ") is larger than " + maxSkew.toSeconds() + " s");
        }
        return new Authentication(scope.accessKeyId(), mode,
                mode == PayloadMode.SIGNED_HASH ? contentSha256.toLowerCase(Locale.ROOT) : null, key, amzDate,
                scope.text(), signature, signed);
    }

    private Authentication presignedAuth(S3Request request, QueryString query) throws S3Exception {
        S3ErrorCode bad = S3ErrorCode.AUTHORIZATION_QUERY_PARAMETERS_ERROR;
        refuseRepeatedAuthParameters(query);
        String algorithm = required(query, "X-Amz-Algorithm");
        if (!SigV4.ALGORITHM.equals(algorithm)) {
            throw new S3Exception(bad, "X-Amz-Algorithm only supports \"" + SigV4.ALGORITHM + "\"");
        }
        String credential = required(query, "X-Amz-Credential");
        String amzDate = required(query, "X-Amz-Date");
        String expiresText = required(query, "X-Amz-Expires");
        String signedHeaders = required(query, "X-Amz-SignedHeaders");
        String signature = required(query, "X-Amz-Signature");
        Instant date = parseDate(amzDate, bad, "X-Amz-Date");
        long expires;
        try {
            expires = Long.parseLong(expiresText);
        } catch (NumberFormatException e) {
            throw new S3Exception(bad, "X-Amz-Expires should be a number");
        }
        if (expires < 1) {
            throw new S3Exception(bad, "X-Amz-Expires must be non-negative");
        }
        if (expires > MAX_PRESIGN_SECONDS) {
            throw new S3Exception(bad, "X-Amz-Expires must be less than a week (in seconds) that is 604800");
        }
        Scope scope = Scope.parse(credential, bad, region, S3_ONLY);
        scope.checkDate(amzDate, bad);
        String secret = secretOf(scope.accessKeyId());
        String declared = query.get("X-Amz-Content-Sha256");
        String payloadHash = declared != null ? declared : "UNSIGNED-PAYLOAD";
        PayloadMode mode = payloadMode(payloadHash);
        if (mode.chunked()) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST, "aws-chunked bodies cannot be presigned");
        }
        List<String> signed = signedHeaderList(signedHeaders, bad);
        byte[] key = SigV4.signingKey(secret, scope.date(), scope.region(), "s3");
        verify(request, SigV4.canonicalQuery(query, "X-Amz-Signature"), signed, signedHeaders, payloadHash, key,
                amzDate, scope.text(), signature);
        UnsignedAmzHeaders.refuse(request, signed);
        Instant now = clock.instant();
        if (date.minus(maxSkew).isAfter(now)) {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "Request is not valid yet (X-Amz-Date " + amzDate
                    + " is more than " + maxSkew.toSeconds() + " s ahead of the server's clock)");
        }
        if (now.isAfter(date.plusSeconds(expires))) {
            throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "Request has expired (X-Amz-Date " + amzDate
                    + ", X-Amz-Expires " + expires + ")");
        }
        return new Authentication(scope.accessKeyId(), mode,
                mode == PayloadMode.SIGNED_HASH ? payloadHash.toLowerCase(Locale.ROOT) : null, key, amzDate,
                scope.text(), signature, signed);
    }

    /** The presigned-URL parameters, each of which must appear at most once (as the header's components). */
    private static final Set<String> AUTH_PARAMETERS = Set.of("X-Amz-Algorithm", "X-Amz-Credential",
            "X-Amz-Date", "X-Amz-Expires", "X-Amz-SignedHeaders", "X-Amz-Signature", "X-Amz-Content-Sha256",
            "X-Amz-Security-Token");

    private static void refuseRepeatedAuthParameters(QueryString query) throws S3Exception {
        Set<String> seen = new HashSet<>();
        for (QueryString.Param p : query.params()) {
            if (AUTH_PARAMETERS.contains(p.name()) && !seen.add(p.name())) {
                throw new S3Exception(S3ErrorCode.AUTHORIZATION_QUERY_PARAMETERS_ERROR,
                        "The query parameter " + p.name() + " appears more than once");
            }
        }
    }

    private static void verify(S3Request request, String canonicalQuery, List<String> signed, String signedHeaders,
            String payloadHash, byte[] key, String amzDate, String scope, String signature) throws S3Exception {
        String canonicalUri = SigV4.canonicalUri(request.rawPath());
        java.util.Map<String, List<String>> values = SigV4.signedHeaderValues(request, signed);
        String canonical = null;
        for (java.util.Map<String, List<String>> candidate : ContentTypeVariants.of(values)) {
            canonical = SigV4.canonicalRequest(request.method(), canonicalUri, canonicalQuery,
                    SigV4.canonicalHeaders(signed, candidate), signedHeaders, payloadHash);
            if (SigV4.sameSignature(SigV4.signature(key, SigV4.stringToSign(amzDate, scope, canonical)), signature)) {
                return;
            }
        }
        // for finding why a client's signature differs: the canonical request we computed (never the key)
        if (LOG.isDebugEnabled()) {
            LOG.debug("SigV4 mismatch; our canonical request:\n{}", canonical);
        }
        throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH);
    }

    /** The credential scope services of plain S3 requests. */
    private static final Set<String> S3_ONLY = Set.of("s3");
    /** The hipobj-rc-v2 control routes: hipObject's reference client signs with service {@code hipobj}. */
    private static final Set<String> CONTROL_SERVICES = Set.of("s3", "hipobj");

    /** A control POST without x-amz-content-sha256 signed the empty body: one that has a body is refused. */
    private static void refuseBody(S3Request request) throws S3Exception {
        String length = request.header("Content-Length");
        if (request.header("Transfer-Encoding") != null || length != null && !length.strip().equals("0")) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST, "The hipobj-rc-v2 control requests are body-less; "
                    + "without x-amz-content-sha256 the signed payload is the empty body, and this request has one");
        }
    }

    private String secretOf(String accessKeyId) throws S3Exception {
        return credentials.secretKey(accessKeyId).orElseThrow(() -> new S3Exception(S3ErrorCode.INVALID_ACCESS_KEY_ID));
    }

    private static String required(QueryString query, String name) throws S3Exception {
        String v = query.get(name);
        if (v == null || v.isEmpty()) {
            throw new S3Exception(S3ErrorCode.AUTHORIZATION_QUERY_PARAMETERS_ERROR,
                    "Query-string authentication requires the " + name + " parameter");
        }
        return v;
    }

    /** {@code value}, unless a component named {@code name} was already read ({@code previous} not null). */
    private static String once(String name, String previous, String value) throws S3Exception {
        if (previous != null) {
            throw malformedHeader("the component " + name + " appears more than once");
        }
        return value;
    }

    private static S3Exception malformedHeader(String why) {
        return new S3Exception(S3ErrorCode.AUTHORIZATION_HEADER_MALFORMED, "The authorization header is malformed: " + why);
    }

    static Instant parseDate(String text, S3ErrorCode code, String what) throws S3Exception {
        try {
            return LocalDateTime.parse(text, AMZ_DATE).toInstant(ZoneOffset.UTC);
        } catch (DateTimeParseException e) {
            throw new S3Exception(code, what + " must be in the ISO 8601 basic form yyyyMMdd'T'HHmmss'Z', not '" + text + "'");
        }
    }

    /** The payload mode that {@code x-amz-content-sha256} declares. */
    public static PayloadMode payloadMode(String contentSha256) throws S3Exception {
        return switch (contentSha256) {
            case "UNSIGNED-PAYLOAD" -> PayloadMode.UNSIGNED;
            case "STREAMING-AWS4-HMAC-SHA256-PAYLOAD" -> PayloadMode.STREAMING_SIGNED;
            case "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER" -> PayloadMode.STREAMING_SIGNED_TRAILER;
            case "STREAMING-UNSIGNED-PAYLOAD-TRAILER" -> PayloadMode.STREAMING_UNSIGNED_TRAILER;
            default -> {
                if (contentSha256.startsWith("STREAMING-")) {
                    throw new S3Exception(S3ErrorCode.NOT_IMPLEMENTED,
                            "x-amz-content-sha256 " + contentSha256 + " is not supported");
                }
                if (!HEX64.matcher(contentSha256).matches()) {
                    throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "x-amz-content-sha256 must be UNSIGNED-PAYLOAD, "
                            + "a STREAMING-* value or the hex SHA-256 of the body, not '" + contentSha256 + "'");
                }
                yield PayloadMode.SIGNED_HASH;
            }
        };
    }

    private static List<String> signedHeaderList(String signedHeaders, S3ErrorCode code) throws S3Exception {
        List<String> names = Arrays.asList(signedHeaders.split(";", -1));
        for (int i = 0; i < names.size(); i++) {
            String n = names.get(i);
            if (!HEADER_NAME.matcher(n).matches() || i > 0 && names.get(i - 1).compareTo(n) >= 0) {
                throw new S3Exception(code, "SignedHeaders must be lower-case header names, sorted and ';'-separated");
            }
        }
        if (!names.contains("host")) {
            throw new S3Exception(code, "SignedHeaders must include host");
        }
        return names;
    }

    /** {@code AKID/yyyyMMdd/region/service/aws4_request}. */
    record Scope(String accessKeyId, String date, String region, String service, String text) {

        static Scope parse(String credential, S3ErrorCode code, String expectedRegion, Set<String> services)
                throws S3Exception {
            int slash = credential.indexOf('/');
            String[] rest = slash < 0 ? new String[0] : credential.substring(slash + 1).split("/", -1);
            if (slash <= 0 || rest.length != 4) {
                throw new S3Exception(code, "the Credential must be <access key>/<date>/<region>/s3/aws4_request, not '"
                        + credential + "'");
            }
            if (!services.contains(rest[2])) {
                throw new S3Exception(code, "the credential's service must be " + (services.size() == 1 ? "s3"
                        : "s3 or hipobj (the hipobj-rc-v2 control routes)") + ", not '" + rest[2] + "'");
            }
            if (!rest[3].equals("aws4_request")) {
                throw new S3Exception(code, "the credential must end in aws4_request, not '" + rest[3] + "'");
            }
            if (!rest[1].equals(expectedRegion)) {
                throw new S3Exception(code, "the region '" + rest[1] + "' is wrong; expecting '" + expectedRegion + "'");
            }
            return new Scope(credential.substring(0, slash), rest[0], rest[1], rest[2],
                    rest[0] + '/' + rest[1] + '/' + rest[2] + '/' + rest[3]);
        }

        void checkDate(String amzDate, S3ErrorCode code) throws S3Exception {
            if (!amzDate.startsWith(date) || date.length() != 8) {
                throw new S3Exception(code, "the credential date '" + date + "' does not match the request date '"
                        + amzDate + "'");
            }
        }
    }
}
