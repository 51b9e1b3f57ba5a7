package org.objrdma.s3.auth;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;

/**
 * Verifies the signature of a browser POST upload's policy: the form's {@code policy} field (base64 text, signed
 * as sent) with SigV4 ({@code x-amz-algorithm = AWS4-HMAC-SHA256}, {@code x-amz-credential},
 * {@code x-amz-date}, hex {@code x-amz-signature}: HMAC-SHA256 with the scope's signing key) or, unless SigV2 is
 * refused, SigV2 ({@code AWSAccessKeyId}, base64 {@code signature}: HMAC-SHA1 with the secret). The policy, not the
 * request, says what may be uploaded until when; the caller checks it after this. A form without any signature
 * field is anonymous, which this gateway refuses (no bucket is public).
 *
 * @since 1.2
 */
public final class PostPolicyAuthenticator {

    private final String region;
    private final boolean acceptSigV2;
    private final CredentialSource credentials;

    public PostPolicyAuthenticator(String region, boolean acceptSigV2, CredentialSource credentials) {
        this.region = Objects.requireNonNull(region, "region");
        this.acceptSigV2 = acceptSigV2;
        this.credentials = Objects.requireNonNull(credentials, "credentials");
    }

    /**
     * @param fields the form fields before the file, names in lower case
     * @return who signed the policy; the authentication vouches for no header (the form's fields are checked
     *         against the policy instead) and its payload is unsigned (the policy bounds it)
     */
    public Authentication authenticate(Map<String, String> fields) throws S3Exception {
        String policy = fields.get("policy");
        if (fields.containsKey("x-amz-algorithm") || fields.containsKey("x-amz-signature")
                || fields.containsKey("x-amz-credential")) {
            return v4(fields, policy);
        }
        if (fields.containsKey("signature") || fields.containsKey("awsaccesskeyid") || policy != null) {
            return v2(fields, policy);
        }
        throw new S3Exception(S3ErrorCode.ACCESS_DENIED, "Anonymous POST uploads are refused: the form carries no "
                + "policy and signature, and no bucket of this gateway is public");
    }

    private Authentication v4(Map<String, String> fields, String policy) throws S3Exception {
        String algorithm = required(fields, "x-amz-algorithm");
        if (!algorithm.equals(SigV4.ALGORITHM)) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
                    "The x-amz-algorithm '" + algorithm + "' is not supported; use " + SigV4.ALGORITHM);
        }
        String credential = required(fields, "x-amz-credential");
        String amzDate = required(fields, "x-amz-date");
        String signature = required(fields, "x-amz-signature");
        required(fields, "policy");
        SigV4Authenticator.Scope scope = SigV4Authenticator.Scope.parse(credential, S3ErrorCode.INVALID_ARGUMENT,
                region, java.util.Set.of("s3"));
        scope.checkDate(amzDate, S3ErrorCode.INVALID_ARGUMENT);
        String secret = secretOf(scope.accessKeyId());
        byte[] key = SigV4.signingKey(secret, scope.date(), scope.region(), "s3");
        if (!SigV4.sameSignature(SigV4.signature(key, policy), signature)) {
            throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH);
        }
        return new Authentication(scope.accessKeyId(), PayloadMode.UNSIGNED, null, key, amzDate, scope.text(),
                signature, List.of(), SignatureVersion.V4);
    }

    private Authentication v2(Map<String, String> fields, String policy) throws S3Exception {
        if (!acceptSigV2) {
            throw new S3Exception(S3ErrorCode.INVALID_REQUEST, "The authorization mechanism you have provided is not "
                    + "supported (AWS Signature Version 2 is turned off on this gateway: org.objrdma.s3 "
                    + "sigv2.enabled = false). Please use AWS4-HMAC-SHA256.");
        }
        String accessKeyId = required(fields, "AWSAccessKeyId");
        String signature = required(fields, "Signature");
        required(fields, "policy");
        String secret = secretOf(accessKeyId);
        if (!SigV2.sameSignature(SigV2.signature(secret, policy), signature)) {
            throw new S3Exception(S3ErrorCode.SIGNATURE_DOES_NOT_MATCH);
        }
        return new Authentication(accessKeyId, PayloadMode.UNSIGNED, null, null, null, null, signature, List.of(),
                SignatureVersion.V2);
    }

    private static String required(Map<String, String> fields, String name) throws S3Exception {
        String v = fields.get(name.toLowerCase(java.util.Locale.ROOT));
        if (v == null || v.isEmpty()) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Bucket POST must contain a field named '" + name
                    + "'. If it is specified, please check the order of the fields (they must come before the file).");
        }
        return v;
    }

    private String secretOf(String accessKeyId) throws S3Exception {
        return credentials.secretKey(accessKeyId).orElseThrow(() -> new S3Exception(S3ErrorCode.INVALID_ACCESS_KEY_ID));
    }

    @Override
    public String toString() {
        return "PostPolicyAuthenticator[sigV2=" + acceptSigV2 + "]";
    }
}
