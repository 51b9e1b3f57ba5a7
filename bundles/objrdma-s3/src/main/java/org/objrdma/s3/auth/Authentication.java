package org.objrdma.s3.auth;

import java.util.List;
import java.util.Locale;

/**
 * A request whose signature checked out: who sent it, which headers the signature covers, and what is needed
 * to verify its body (the signing key, scope and seed signature chain aws-chunked chunk signatures).
 *
 * @param accessKeyId   the verified access key
 * @param payload       how the body is protected
 * @param payloadSha256 the declared hex SHA-256 when {@code payload} is {@link PayloadMode#SIGNED_HASH}, else null
 * @param signingKey    SigV4's derived key; null for SigV2 (whose body is never chunk-signed)
 * @param amzDate       SigV4: the request's {@code yyyyMMdd'T'HHmmss'Z'} timestamp; SigV2: the Date, x-amz-date or
 *                      Expires value that was signed
 * @param scope         SigV4: {@code date/region/s3/aws4_request}; null for SigV2, which has no scope
 * @param seedSignature the request's signature, the first link of the chunk chain
 * @param signedHeaders the lower-case header names the verified signature covers, exactly the list the signature
 *                      was computed over (SigV4: {@code SignedHeaders=} or {@code X-Amz-SignedHeaders}; SigV2: every
 *                      {@code x-amz-*} header present, plus Content-MD5, Content-Type and Date when present, since
 *                      SigV2's string to sign holds all of them): every later check of "is this header signed"
 *                      asks this list, never the raw request again
 * @param version       which scheme verified the request (the RDMA routes accept only {@link SignatureVersion#V4})
 * @since 1.1
 */
public record Authentication(String accessKeyId, PayloadMode payload, String payloadSha256, byte[] signingKey,
        String amzDate, String scope, String seedSignature, List<String> signedHeaders, SignatureVersion version) {

    public Authentication {
        signedHeaders = List.copyOf(signedHeaders);
        java.util.Objects.requireNonNull(version, "version");
    }

    /** A SigV4 authentication covering {@code signedHeaders}. */
    public Authentication(String accessKeyId, PayloadMode payload, String payloadSha256, byte[] signingKey,
            String amzDate, String scope, String seedSignature, List<String> signedHeaders) {
        this(accessKeyId, payload, payloadSha256, signingKey, amzDate, scope, seedSignature, signedHeaders,
                SignatureVersion.V4);
    }

    /**
     * A SigV4 authentication that vouches for no header: every "is it signed" check answers no (the 1.0 shape, kept
     * for callers built against it).
     */
    public Authentication(String accessKeyId, PayloadMode payload, String payloadSha256, byte[] signingKey,
            String amzDate, String scope, String seedSignature) {
        this(accessKeyId, payload, payloadSha256, signingKey, amzDate, scope, seedSignature, List.of());
    }

    /** Whether the verified signature covers the header {@code name} (any case). */
    public boolean signs(String name) {
        return signedHeaders.contains(name.toLowerCase(Locale.ROOT));
    }
}
