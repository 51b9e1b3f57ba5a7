package org.objrdma.s3.auth;

/**
 * A request whose signature checked out: who sent it and what is needed to verify its body (the signing
 * key, scope and seed signature chain aws-chunked chunk signatures).
 *
 * @param accessKeyId   the verified access key
 * @param payload       how the body is protected
 * @param payloadSha256 the declared hex SHA-256 when {@code payload} is {@link PayloadMode#SIGNED_HASH}, else null
 * @param amzDate       the request's {@code yyyyMMdd'T'HHmmss'Z'} timestamp
 * @param scope         {@code date/region/s3/aws4_request}
 * @param seedSignature the request's signature, the first link of the chunk chain
 */
public record Authentication(String accessKeyId, PayloadMode payload, String payloadSha256, byte[] signingKey,
        String amzDate, String scope, String seedSignature) {
}
