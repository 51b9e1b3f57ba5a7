package org.objrdma.store.s3.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * What gaul/s3proxy 4.1.0 with its filesystem backend does not do, shown with a plain AWS SDK client and
 * no adapter in between: the reasons {@link S3ProxyContractGaps} gives for the contract cases it skips.
 * If an s3proxy upgrade lifts a limit, its test here fails and the skip must go.
 */
class S3ProxyLimitsTest {
    @TempDir
    static Path dir;
    private static S3ProxyServer remote;
    private static S3Client s3;

    @BeforeAll
    static void start() throws Exception {
        remote = new S3ProxyServer(dir);
        s3 = S3Client.builder().endpointOverride(remote.endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(S3ProxyServer.SERVICE_KEY, S3ProxyServer.SERVICE_SECRET)))
                .build();
        s3.createBucket(b -> b.bucket("limits"));
    }

    @AfterAll
    static void stop() throws Exception {
        s3.close();
        remote.close();
    }

    private static void put(String key, String body) {
        s3.putObject(b -> b.bucket("limits").key(key), RequestBody.fromString(body));
    }

    private static int status(String key) {
        return assertThrows(S3Exception.class, () -> put(key, "x"), key).statusCode();
    }

    @Test
    void keysWithEmptyOrDotSegmentsOrLongerThanAFileNameAreRefused() {
        assertEquals(403, status("/leading"), "an empty path segment: the signature no longer matches");
        assertEquals(403, status("a//b"));
        assertEquals(400, status(".."));
        assertEquals(400, status("../../escape"));
        assertEquals(500, status("x".repeat(1024)), "1 024 bytes exceed the file system's 255-byte name limit");
    }

    @Test
    void aKeyEndingInSlashLosesItsBytesAndAKeyCannotHaveKeysBelowIt() {
        put("trailing/", "x");
        assertEquals("", s3.getObjectAsBytes(b -> b.bucket("limits").key("trailing/")).asUtf8String(),
                "stored as a directory marker");
        put("q", "x");
        assertEquals(500, status("q/r"), "q is a file, so q/r cannot be");
    }

    @Test
    void listingIsInUtf16OrderNotS3sUtf8Order() {
        put("order/\uFFFD", "x");
        put("order/\uD83D\uDE00", "x");
        List<String> keys = s3.listObjectsV2(b -> b.bucket("limits").prefix("order/")).contents().stream()
                .map(S3Object::key).toList();
        assertEquals(List.of("order/\uD83D\uDE00", "order/\uFFFD"), keys, "S3 lists U+FFFD (EF BF BD) first");
    }

    @Test
    void bucketsCannotBeVersioned() {
        S3Exception e = assertThrows(S3Exception.class, () -> s3.putBucketVersioning(b -> b.bucket("limits")
                .versioningConfiguration(v -> v.status("Enabled"))));
        assertEquals(501, e.statusCode());
    }
}
