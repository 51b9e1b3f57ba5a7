package org.objrdma.itests.s3;

import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.presigner.S3Presigner;

/**
 * What every conformance test class shares: the server under test ({@link #endpoint()}, {@link #accessKey()},
 * {@link #secretKey()}, {@link #region()}, all from {@link #target()}), the clients pointed at it, fresh
 * bucket names and a scratch directory. A concrete class per server supplies the target; {@link #followsS3Strictly()} is true where the server under test must
 * match S3's documented behaviour also where the reference server (s3proxy) deviates from it.
 */
public abstract class S3ConformanceBase {

    private static final AtomicInteger BUCKETS = new AtomicInteger();

    @TempDir
    protected Path scratch;

    private final List<AutoCloseable> clients = new ArrayList<>();

    /** The server under test: endpoint, credential, region (the one thing a concrete class supplies). */
    protected abstract S3Target target();

    /** True for objrdma: assertions that follow S3 where s3proxy does not are made only then. */
    protected abstract boolean followsS3Strictly();

    protected final URI endpoint() {
        return target().endpoint();
    }

    protected final String accessKey() {
        return target().accessKey();
    }

    protected final String secretKey() {
        return target().secretKey();
    }

    protected final String region() {
        return target().region();
    }

    protected final StaticCredentialsProvider credentials() {
        return StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey(), secretKey()));
    }

    /** A synchronous SDK client sending requests of the shape {@code mode} names; closed after the test. */
    protected final S3Client s3(ClientMode mode) {
        S3Client c = S3Client.builder()
                .endpointOverride(endpoint())
                .region(Region.of(region()))
                .credentialsProvider(credentials())
                .forcePathStyle(true)
                .requestChecksumCalculation(mode == ClientMode.DEFAULTS
                        ? RequestChecksumCalculation.WHEN_SUPPORTED : RequestChecksumCalculation.WHEN_REQUIRED)
                .serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(mode != ClientMode.UNCHUNKED)
                        .build())
                .build();
        clients.add(c);
        return c;
    }

    /** The SDK's asynchronous client with its Java multipart support, for the transfer manager. */
    protected final S3AsyncClient s3Async(long partSize) {
        S3AsyncClient c = S3AsyncClient.builder()
                .endpointOverride(endpoint())
                .region(Region.of(region()))
                .credentialsProvider(credentials())
                .forcePathStyle(true)
                .multipartEnabled(true)
                .multipartConfiguration(m -> m.thresholdInBytes(partSize).minimumPartSizeInBytes(partSize))
                .build();
        clients.add(c);
        return c;
    }

    protected final S3Presigner presigner() {
        S3Presigner p = S3Presigner.builder()
                .endpointOverride(endpoint())
                .region(Region.of(region()))
                .credentialsProvider(credentials())
                .serviceConfiguration(S3Configuration.builder().pathStyleAccessEnabled(true).build())
                .build();
        clients.add(p);
        return p;
    }

    protected final RawS3 raw() {
        return new RawS3(target());
    }

    /** A bucket name no test used before (in this JVM, and randomised across runs), not yet created. */
    protected static String bucketName(String purpose) {
        return ("it-" + purpose + "-" + BUCKETS.incrementAndGet() + "-"
                + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt())).toLowerCase(java.util.Locale.ROOT);
    }

    /** Creates and returns a new bucket. */
    protected final String newBucket(String purpose) {
        String bucket = bucketName(purpose);
        s3(ClientMode.DEFAULTS).createBucket(b -> b.bucket(bucket));
        return bucket;
    }

    @AfterEach
    void closeClients() throws Exception {
        for (AutoCloseable c : clients) {
            c.close();
        }
        clients.clear();
    }
}
