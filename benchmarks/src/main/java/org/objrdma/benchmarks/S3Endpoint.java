package org.objrdma.benchmarks;

import java.io.InputStream;
import java.net.URI;
import java.util.UUID;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An S3 server driven by the AWS SDK for Java v2 with its default settings (aws-chunked with a CRC32 trailer,
 * path style), the same client for every server measured. Objects go to a fresh bucket.
 */
final class S3Endpoint implements BenchTarget {

    private final String name;
    private final S3Client s3;
    private final String bucket = "bench-" + UUID.randomUUID().toString().substring(0, 8);

    S3Endpoint(String name, URI endpoint, String accessKey, String secretKey) {
        this.name = name;
        this.s3 = S3Client.builder().endpointOverride(endpoint).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .build();
        s3.createBucket(b -> b.bucket(bucket));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void put(String key, byte[] data) {
        // fromBytes would copy the 64 MiB array on every call; the benchmark owns the array and never changes it
        s3.putObject(b -> b.bucket(bucket).key(key),
                RequestBody.fromContentProvider(ContentStreamProvider.fromByteArrayUnsafe(data), data.length,
                        "application/octet-stream"));
    }

    @Override
    public long get(String key, byte[] buffer) throws Exception {
        long total = 0;
        try (InputStream in = s3.getObject(b -> b.bucket(bucket).key(key))) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                total += n;
            }
        }
        return total;
    }

    @Override
    public void close() {
        s3.close();
    }
}
