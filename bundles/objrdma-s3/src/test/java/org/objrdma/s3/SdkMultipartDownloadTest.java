package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.transfer.s3.S3TransferManager;

/**
 * The AWS SDK for Java v2 (2.59.1, default checksum settings) against the gateway over loopback HTTP: a
 * multipart upload and a multipart download through {@link S3TransferManager} (which reads the object
 * by {@code partNumber}), and {@code GetObject} / {@code HeadObject} with a part number. Byte-exact.
 */
class SdkMultipartDownloadTest {
    private static final long MIB = 1024 * 1024;
    private static final long PART = 5 * MIB;

    @TempDir
    Path dir;
    private EmbeddedStore store;
    private LoopbackHttpFront front;
    private S3AsyncClient async;
    private S3Client sync;

    @BeforeEach
    void start() throws Exception {
        store = EmbeddedStores.filesystem(dir.resolve("store"), Map.of(SdkSigner.AK, SdkSigner.SECRET),
                5L << 40, false);
        front = new LoopbackHttpFront(new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC()));
        StaticCredentialsProvider credentials = StaticCredentialsProvider.create(
                AwsBasicCredentials.create(SdkSigner.AK, SdkSigner.SECRET));
        async = S3AsyncClient.builder().endpointOverride(front.endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(credentials).forcePathStyle(true).multipartEnabled(true)
                .multipartConfiguration(c -> c.minimumPartSizeInBytes(PART).thresholdInBytes(PART)).build();
        sync = S3Client.builder().endpointOverride(front.endpoint()).region(Region.US_EAST_1)
                .credentialsProvider(credentials).forcePathStyle(true).build();
        sync.createBucket(b -> b.bucket("bkt"));
    }

    @AfterEach
    void stop() {
        sync.close();
        async.close();
        front.close();
        store.close();
    }

    @Test
    void transferManagerDownloadsAMultipartObjectByPartNumber() throws Exception {
        byte[] data = new byte[(int) (2 * PART + 123_457)];
        new Random(7).nextBytes(data);
        Path source = Files.write(dir.resolve("up.bin"), data);
        Path target = dir.resolve("down.bin");
        try (S3TransferManager tm = S3TransferManager.builder().s3Client(async).build()) {
            tm.uploadFile(u -> u.source(source).putObjectRequest(p -> p.bucket("bkt").key("dir/big.bin")))
                    .completionFuture().join();
            HeadObjectResponse head = sync.headObject(h -> h.bucket("bkt").key("dir/big.bin"));
            assertTrue(head.eTag().endsWith("-3\""), "uploaded in 3 parts: " + head.eTag());
            front.requests.clear();
            tm.downloadFile(d -> d.destination(target).getObjectRequest(g -> g.bucket("bkt").key("dir/big.bin")))
                    .completionFuture().join();
        }
        assertArrayEquals(data, Files.readAllBytes(target), "downloaded bytes equal the uploaded ones");
        for (int n = 1; n <= 3; n++) {
            assertTrue(front.requests.contains("GET partNumber=" + n), "the SDK asked for part " + n + ": "
                    + front.requests);
        }
    }

    @Test
    void getObjectAndHeadObjectWithAPartNumber() throws Exception {
        byte[] data = new byte[(int) (PART + 999)];
        new Random(8).nextBytes(data);
        try (S3TransferManager tm = S3TransferManager.builder().s3Client(async).build()) {
            tm.upload(u -> u.requestBody(software.amazon.awssdk.core.async.AsyncRequestBody.fromBytes(data))
                    .putObjectRequest(p -> p.bucket("bkt").key("two"))).completionFuture().join();
        }
        ResponseBytes<GetObjectResponse> part2 = sync.getObject(g -> g.bucket("bkt").key("two").partNumber(2),
                ResponseTransformer.toBytes());
        assertEquals(2, part2.response().partsCount());
        assertEquals("bytes " + PART + "-" + (data.length - 1) + "/" + data.length, part2.response().contentRange());
        assertArrayEquals(java.util.Arrays.copyOfRange(data, (int) PART, data.length), part2.asByteArray());
        HeadObjectResponse head1 = sync.headObject(h -> h.bucket("bkt").key("two").partNumber(1));
        assertEquals(2, head1.partsCount());
        assertEquals(PART, head1.contentLength());
        S3Exception past = org.junit.jupiter.api.Assertions.assertThrows(S3Exception.class,
                () -> sync.getObject(g -> g.bucket("bkt").key("two").partNumber(3), ResponseTransformer.toBytes()));
        assertEquals(400, past.statusCode());
        assertEquals("InvalidPart", past.awsErrorDetails().errorCode());
    }
}
