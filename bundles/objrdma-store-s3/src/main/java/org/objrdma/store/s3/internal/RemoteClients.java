package org.objrdma.store.s3.internal;

import java.io.InputStream;
import java.nio.file.Files;
import java.security.KeyStore;
import java.time.Duration;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.TlsTrustManagersProvider;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** Builds the one pooled, synchronous S3 client the adapter talks to the remote store with. */
final class RemoteClients {
    private RemoteClients() {
    }

    static S3Client create(S3StoreSettings s) {
        ApacheHttpClient.Builder http = ApacheHttpClient.builder()
                .maxConnections(s.maxConnections())
                .connectionTimeout(Duration.ofMillis(s.connectTimeoutMs()))
                .socketTimeout(Duration.ofMillis(s.readTimeoutMs()))
                .connectionAcquisitionTimeout(Duration.ofMillis(s.readTimeoutMs()));
        if (s.trustStore() != null) {
            TrustManager[] managers = trustManagers(s);
            http.tlsTrustManagersProvider((TlsTrustManagersProvider) () -> managers);
        }
        SdkHttpClient httpClient = http.build();
        return S3Client.builder()
                .httpClient(httpClient)
                .endpointOverride(s.endpoint())
                .region(Region.of(s.region()))
                .forcePathStyle(s.pathStyle())
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(s.serviceAccessKey(), s.serviceSecretKey())))
                // the adapter computes MD5 and the requested checksums itself while the bytes pass (it must,
                // for the commit verifier) and sends them as headers; no aws-chunked trailer is needed
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(o -> o.retryStrategy(RetryMode.STANDARD)
                        .retryStrategy(b -> b.maxAttempts(s.maxRetries() + 1)))
                .build();
    }

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
