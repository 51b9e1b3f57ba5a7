package org.objrdma.client.sdk;

import software.amazon.awssdk.core.SdkPlugin;
import software.amazon.awssdk.core.SdkServiceClientConfiguration;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.auth.scheme.S3AuthSchemeProvider;

/**
 * The per-request plugin of an S3 request that carries an {@code x-amz-rdma-token}: the SDK still signs it (so the
 * token header lands in SignedHeaders, as the gateway requires), but sends it the way the cuObject contract wants a
 * request without body: no aws-chunked encoding, no trailing checksum (the bytes travel over RDMA, so a checksum of
 * the empty HTTP body would contradict the ones the gateway computes over the bytes that arrived), and no response
 * checksum validation of a GET's empty body. The application's client configuration is untouched: the plugin
 * applies to a copy for this request only.
 *
 * <p>Over plain {@code http://} the SDK's SigV4 signer always hashes the payload, so a PUT carries the SHA-256 of its
 * empty body rather than {@code UNSIGNED-PAYLOAD}; both say "no body" and the gateway accepts either (over
 * {@code https://} it is {@code UNSIGNED-PAYLOAD}).
 */
final class RdmaRequestPlugin implements SdkPlugin {

    static final RdmaRequestPlugin INSTANCE = new RdmaRequestPlugin();

    private RdmaRequestPlugin() {
    }

    @Override
    public void configureClient(SdkServiceClientConfiguration.Builder config) {
        S3ServiceClientConfiguration.Builder s3 = (S3ServiceClientConfiguration.Builder) config;
        s3.requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED);
        s3.responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
        S3AuthSchemeProvider inner = s3.authSchemeProvider();
        s3.authSchemeProvider(params -> inner.resolveAuthScheme(params).stream()
                .map(option -> option.toBuilder()
                        .putSignerProperty(AwsV4FamilyHttpSigner.CHUNK_ENCODING_ENABLED, false)
                        .putSignerProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, false)
                        .build())
                .toList());
    }
}
