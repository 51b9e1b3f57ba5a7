package org.objrdma.itests.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.presigner.model.PresignedGetObjectRequest;
import software.amazon.awssdk.services.s3.presigner.model.PresignedPutObjectRequest;

/** Presigned GET and PUT URLs made by the SDK's presigner and used by a plain HTTP client. */
public abstract class PresignedUrlConformance extends S3ConformanceBase {

    @Test
    void presignedGetAndPut() throws Exception {
        S3Client s3 = s3(ClientMode.DEFAULTS);
        String bucket = newBucket("presign");
        byte[] data = Payloads.random(4096, 5);
        s3.putObject(b -> b.bucket(bucket).key("get/me"), RequestBody.fromBytes(data));

        PresignedGetObjectRequest get = presigner().presignGetObject(p -> p.signatureDuration(Duration.ofMinutes(5))
                .getObjectRequest(g -> g.bucket(bucket).key("get/me")));
        RawS3.Response got = raw().get(get.url().toURI());
        assertEquals(200, got.status(), got::toString);
        assertArrayEquals(data, got.body());

        byte[] upload = Payloads.random(10_000, 6);
        PresignedPutObjectRequest put = presigner().presignPutObject(p -> p.signatureDuration(Duration.ofMinutes(5))
                .putObjectRequest(o -> o.bucket(bucket).key("put/me")));
        Map<String, String> headers = new HashMap<>();
        put.signedHeaders().forEach((name, values) -> {
            if (!name.equalsIgnoreCase("host")) {
                headers.put(name, String.join(",", values));
            }
        });
        RawS3.Response stored = raw().send("PUT", put.url().toURI(), headers, upload);
        assertEquals(200, stored.status(), stored::toString);
        assertArrayEquals(upload, s3.getObjectAsBytes(b -> b.bucket(bucket).key("put/me")).asByteArray());
        assertEquals(List.of("get/me", "put/me"),
                SdkOperationsConformance.keys(s3.listObjectsV2(b -> b.bucket(bucket)).contents()));
    }
}
