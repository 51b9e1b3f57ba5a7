package org.objrdma.store.s3.internal;

import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.nio.file.Files;
import java.security.KeyStore;
import java.time.Duration;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.TlsTrustManagersProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;

/** Builds the one pooled, synchronous S3 client the adapter talks to the remote store with. */
final class RemoteClients {
    private RemoteClients() {
    }

    /**
     * The two clients of the remote calls, both over every endpoint with one failover view ({@link EndpointFailover})
     * and one connection pool: {@code s3} for every call, {@code streaming} for the streamed PutObject of a
     * non-empty client body ({@link VerifiedBody}), which signs its payload in aws-chunked signed chunks instead of
     * a SHA-256 pass over the whole body before sending (the SDK signs the payload over plain HTTP; only
     * aws-chunked lets it do so while the bytes pass). Close {@code streaming} first.
     */
    record Remote(S3Client s3, S3Client streaming) implements AutoCloseable {
        @Override
        public void close() {
            try {
                streaming.close();
            } finally {
                s3.close();
            }
        }
    }

    static Remote createBoth(S3StoreSettings s) {
        ApacheHttpClient.Builder http = httpBuilder(s);
        SdkHttpClient httpClient = http.build();
        List<S3Client> clients = new ArrayList<>();
        List<S3Client> streaming = new ArrayList<>();
        for (URI endpoint : s.endpoints()) {
            clients.add(create(s, httpClient, endpoint, false));
            streaming.add(create(s, httpClient, endpoint, true));
        }
        S3Client s3 = EndpointFailover.over(s.endpoints(), clients, s.failoverStatuses(), s.failoverCooldownMs(),
                httpClient::close);
        return new Remote(s3, EndpointFailover.sibling(s3, streaming));
    }

    private static ApacheHttpClient.Builder httpBuilder(S3StoreSettings s) {
        ApacheHttpClient.Builder http = ApacheHttpClient.builder()
                .maxConnections(s.maxConnections())
                .connectionTimeout(Duration.ofMillis(s.connectTimeoutMs()))
                .socketTimeout(Duration.ofMillis(s.readTimeoutMs()))
                .connectionAcquisitionTimeout(Duration.ofMillis(s.readTimeoutMs()));
        if (s.trustStore() != null) {
            TrustManager[] managers = trustManagers(s);
            http.tlsTrustManagersProvider((TlsTrustManagersProvider) () -> managers);
        }
        return http;
    }

    /** The client of every remote call: one SDK client per endpoint behind {@link EndpointFailover}. */
    static S3Client create(S3StoreSettings s) {
        ApacheHttpClient.Builder http = httpBuilder(s);
        // one connection pool for all endpoints; the SDK does not close an HTTP client it was given, the
        // failover client's close does
        SdkHttpClient httpClient = http.build();
        List<S3Client> clients = new ArrayList<>();
        for (URI endpoint : s.endpoints()) {
            clients.add(create(s, httpClient, endpoint, false));
        }
        return EndpointFailover.over(s.endpoints(), clients, s.failoverStatuses(), s.failoverCooldownMs(),
                httpClient::close);
    }

    private static S3Client create(S3StoreSettings s, SdkHttpClient httpClient, URI endpoint, boolean chunked) {
        return S3Client.builder()
                .httpClient(httpClient)
                .endpointOverride(endpoint)
                .region(Region.of(s.region()))
                // no aws-chunked bodies (but in the streaming client, used for non-empty bodies only): Ceph RGW 16.2 refuses the final chunk signature of an empty one
                // (XAmzContentSHA256Mismatch, "signature of last chunk does not match"), so an empty object or
                // catalog record could not be written; without it the SDK signs the payload's SHA-256 over plain
                // HTTP (one more pass over re-creatable bodies) and sends UNSIGNED-PAYLOAD over TLS
                .serviceConfiguration(S3Configuration.builder()
                        .pathStyleAccessEnabled(s.pathStyle())
                        .chunkedEncodingEnabled(chunked)
                        .build())
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(s.serviceAccessKey(), s.serviceSecretKey())))
                // the adapter computes MD5 and the requested checksums itself while the bytes pass (it must,
                // for the commit verifier) and sends them as headers; no aws-chunked trailer is needed
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(o -> o.retryStrategy(RetryMode.STANDARD)
                        .retryStrategy(b -> b.maxAttempts(s.maxRetries() + 1))
                        .addExecutionInterceptor(NO_EXPECT_CONTINUE))
                .build();
    }

    /**
     * Drops the {@code Expect: 100-continue} the SDK adds to PutObject and UploadPart: waiting for the remote's
     * interim answer before the body costs a round trip on every put (issue 28: the gateway's cost in front of RGW),
     * and what it would save — a refused body not sent — is rare here: the adapter checked names and the owner
     * before, and a streamed body is cut by a refusal anyway. Runs after the SDK's own interceptors.
     */
    static final ExecutionInterceptor NO_EXPECT_CONTINUE = new ExecutionInterceptor() {
        @Override
        public SdkHttpRequest modifyHttpRequest(Context.ModifyHttpRequest context, ExecutionAttributes attributes) {
            SdkHttpRequest request = context.httpRequest();
            return request.firstMatchingHeader("Expect").isPresent() ? request.toBuilder().removeHeader("Expect").build()
                    : request;
        }
    };

    private static TrustManager[] trustManagers(S3StoreSettings s) {
        try (InputStream in = Files.newInputStream(s.trustStore())) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, s.trustStorePassword().toCharArray());
            TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            factory.init(store);
            return factory.getTrustManagers();
        } catch (Exception e) {
            throw new IllegalArgumentException("tls.truststore: cannot load " + s.trustStore() + " as PKCS12: " + e);
        }
    }
}
