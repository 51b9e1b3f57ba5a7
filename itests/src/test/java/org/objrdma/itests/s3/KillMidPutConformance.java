package org.objrdma.itests.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The gateway's JVM killed (SIGKILL) in the middle of a 256 MiB PUT over an existing object: after a restart
 * the old object is intact (by checksum) and nothing partial is visible, neither as the key nor in a listing
 * nor as a multipart upload. Needs a server the test can crash, so only the distribution runs it.
 */
public abstract class KillMidPutConformance extends S3ConformanceBase {

    private static final long PUT_SIZE = 256L << 20;
    private static final long KILL_AFTER = 64L << 20;

    /** SIGKILL to the server under test; returns once it is gone. */
    protected abstract void crash() throws Exception;

    /** Starts the crashed server again and returns once it answers. */
    protected abstract void restart() throws Exception;

    @Test
    void killDuringPutLeavesTheOldObject() throws Exception {
        String bucket = newBucket("kill");
        byte[] old = Payloads.random(3 << 20, 77);
        s3(ClientMode.DEFAULTS).putObject(b -> b.bucket(bucket).key("victim"), RequestBody.fromBytes(old));

        CountDownLatch midBody = new CountDownLatch(1);
        CountDownLatch killed = new CountDownLatch(1);
        RawS3 raw = raw();
        URI uri = raw.uri(ErrorConformance.path(bucket, "victim"), null);
        SigV4.Signed signed = raw.signer().sign("PUT", uri, Map.of(), SigV4.UNSIGNED_PAYLOAD, Instant.now());
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofMinutes(2))
                .PUT(HttpRequest.BodyPublishers.fromPublisher(HttpRequest.BodyPublishers.ofInputStream(
                        () -> new HaltingBody(PUT_SIZE, KILL_AFTER, midBody, killed)), PUT_SIZE));
        signed.headers().forEach(request::header);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        CompletableFuture<HttpResponse<String>> put = http.sendAsync(request.build(), HttpResponse.BodyHandlers.ofString());

        assertTrue(midBody.await(60, TimeUnit.SECONDS), "the PUT never got " + KILL_AFTER + " bytes into its body");
        crash();
        killed.countDown();
        try {
            HttpResponse<String> r = put.get(2, TimeUnit.MINUTES);
            assertNotEquals(200, r.statusCode(), "a PUT whose server died mid-body succeeded: " + r.body());
        } catch (java.util.concurrent.ExecutionException expected) {
            // the connection died with the server
        }
        restart();

        S3Client s3 = s3(ClientMode.DEFAULTS);
        assertEquals(Payloads.sha256(old), Payloads.sha256(s3.getObject(b -> b.bucket(bucket).key("victim"))));
        assertEquals(old.length, s3.headObject(b -> b.bucket(bucket).key("victim")).contentLength());
        List<String> listed = SdkOperationsConformance.keys(s3.listObjectsV2(b -> b.bucket(bucket)).contents());
        if (followsS3Strictly()) {
            assertEquals(List.of("victim"), listed);
        } else {
            // s3proxy 4.1.0's filesystem backend leaves its temporary file behind, listed as "victim-<uuid>"
            // (measured by S3ProxyKillMidPutIT); S3 never shows a partial PUT
            assertTrue(listed.contains("victim"), listed::toString);
        }
        assertTrue(s3.listMultipartUploads(b -> b.bucket(bucket)).uploads().isEmpty());
    }

    /** Random bytes that stop after {@code haltAt} until the server has been killed, so the kill is mid-body. */
    private static final class HaltingBody extends InputStream {
        private final SplittableRandom random = new SplittableRandom(5);
        private final long size;
        private final long haltAt;
        private final CountDownLatch midBody;
        private final CountDownLatch killed;
        private long sent;

        HaltingBody(long size, long haltAt, CountDownLatch midBody, CountDownLatch killed) {
            this.size = size;
            this.haltAt = haltAt;
            this.midBody = midBody;
            this.killed = killed;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (sent >= size) {
                return -1;
            }
            if (sent >= haltAt) {
                midBody.countDown();
                try {
                    killed.await(2, TimeUnit.MINUTES);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException(e);
                }
            }
            int n = (int) Math.min(len, Math.min(size - sent, sent < haltAt ? haltAt - sent : Long.MAX_VALUE));
            byte[] chunk = new byte[n];
            random.nextBytes(chunk);
            System.arraycopy(chunk, 0, b, off, n);
            sent += n;
            return n;
        }
    }
}
