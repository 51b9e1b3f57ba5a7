package org.objrdma.itests.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * Issue 24, finding 5, through the real distribution ({@code bin/karaf server}, its shipped Pax Web
 * configuration): {@value #SLOW_CLIENTS} anonymous clients, more than the {@value #MAX_THREADS} worker threads
 * the distribution configures, each send an anonymous PUT announcing 8 MiB and then trickle its body one byte
 * per second. Meanwhile a signed client (the AWS SDK) is served every round within {@value #ROUND_SECONDS} s.
 * Every slow client has its 403 AccessDenied with {@code Connection: close} while it is still sending; a signed
 * client trickling its body is cut by the gateway's body rate (1 KiB/s after 10 s) with S3's RequestTimeout. Before
 * the fix the servlet read each refused body to drain it, so the trickling clients held every worker thread
 * and the signed client waited. Bounded: a fixed number of clients and rounds, every socket closed at the end,
 * the whole test cut at 5 minutes.
 */
class SlowClientsIT {

    private static final int SLOW_CLIENTS = 240;
    /** {@code org.ops4j.pax.web.server.maxThreads} in the shipped etc/org.ops4j.pax.web.cfg. */
    private static final int MAX_THREADS = 200;
    private static final int ROUNDS = 5;
    private static final int ROUND_SECONDS = 10;
    private static final int SIGNED_TRICKLE_SECONDS = 20;

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void aSignedClientIsServedWhileSlowAnonymousClientsTrickleTheirBodies() throws Exception {
        Path target = Path.of("target", "slow-clients").toAbsolutePath();
        try (ObjrdmaGateway gateway = ObjrdmaGateway.unpack(target)) {
            String shipped = Files.readString(gateway.home().resolve("etc/org.ops4j.pax.web.cfg"));
            assertTrue(shipped.contains("org.ops4j.pax.web.server.maxThreads = " + MAX_THREADS), shipped);
            gateway.start();
            S3Target s3 = gateway.target();
            List<Socket> slow = new ArrayList<>();
            ScheduledExecutorService trickle = Executors.newSingleThreadScheduledExecutor();
            try (S3Client sdk = S3Client.builder().endpointOverride(s3.endpoint()).region(Region.of(s3.region()))
                    .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(
                            AwsBasicCredentials.create(s3.accessKey(), s3.secretKey())))
                    .overrideConfiguration(c -> c.apiCallTimeout(Duration.ofSeconds(ROUND_SECONDS * 3)))
                    .build()) {
                sdk.createBucket(b -> b.bucket("slow-clients"));
                for (int i = 0; i < SLOW_CLIENTS; i++) {
                    slow.add(openSlowClient(s3, i));
                }
                // one byte per second on every slow connection, for as long as the rounds last
                trickle.scheduleWithFixedDelay(() -> slow.forEach(SlowClientsIT::sendOneByte), 1, 1, TimeUnit.SECONDS);
                for (int r = 0; r < ROUNDS; r++) {
                    int round = r;
                    byte[] data = ("round " + round).getBytes(StandardCharsets.UTF_8);
                    long start = System.nanoTime();
                    sdk.putObject(b -> b.bucket("slow-clients").key("k" + round), RequestBody.fromBytes(data));
                    byte[] back = sdk.getObjectAsBytes(b -> b.bucket("slow-clients").key("k" + round)).asByteArray();
                    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    assertArrayEquals(data, back);
                    assertTrue(millis < ROUND_SECONDS * 1000L, "round " + round + " of the signed client took " + millis
                            + " ms with " + SLOW_CLIENTS + " slow anonymous clients connected");
                    TimeUnit.SECONDS.sleep(1);
                }
                int answered = 0;
                for (Socket s : slow) {
                    String head = responseHead(s);
                    if (head.startsWith("HTTP/1.1 403") && head.toLowerCase().contains("connection: close")) {
                        answered++;
                    }
                }
                assertEquals(SLOW_CLIENTS, answered, "slow clients answered 403 with Connection: close while sending");

                // a signed client trickling its body is cut by the gateway's body rate (ContainerBodyInputStream):
                // S3's RequestTimeout, nothing stored
                String slowAnswer = signedTrickle(s3);
                assertTrue(slowAnswer.startsWith("HTTP/1.1 400") && slowAnswer.contains("<Code>RequestTimeout</Code>"),
                        slowAnswer);
                assertThrows(NoSuchKeyException.class,
                        () -> sdk.headObject(b -> b.bucket("slow-clients").key("signed-slow")));
            } finally {
                trickle.shutdownNow();
                trickle.awaitTermination(10, TimeUnit.SECONDS);
                for (Socket s : slow) {
                    s.close();
                }
            }
        }
    }

    /**
     * A header-signed PUT (UNSIGNED-PAYLOAD) announcing 1 MiB that sends one byte per second; the answer as it
     * came (status line, headers and body), or what came within {@value #SIGNED_TRICKLE_SECONDS} s.
     */
    private static String signedTrickle(S3Target s3) throws Exception {
        URI uri = URI.create(s3.endpoint() + "/slow-clients/signed-slow");
        SigV4.Signed signed = new SigV4(s3).sign("PUT", uri, Map.of("Content-Length", String.valueOf(1 << 20)),
                SigV4.UNSIGNED_PAYLOAD, Instant.now());
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 10_000);
            s.setSoTimeout(1000);
            StringBuilder request = new StringBuilder("PUT " + uri.getRawPath() + " HTTP/1.1\r\nHost: "
                    + uri.getRawAuthority() + "\r\n");
            signed.headers().forEach((k, v) -> request.append(k).append(": ").append(v).append("\r\n"));
            request.append("\r\nx");
            OutputStream out = s.getOutputStream();
            out.write(request.toString().getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            java.io.ByteArrayOutputStream answer = new java.io.ByteArrayOutputStream();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SIGNED_TRICKLE_SECONDS);
            while (System.nanoTime() < deadline) {
                try {
                    int n = in.read();
                    if (n < 0) {
                        break;
                    }
                    answer.write(n);
                    answer.write(in.readNBytes(in.available()));
                } catch (SocketTimeoutException quiet) {
                    sendOneByte(s);
                }
            }
            return answer.toString(StandardCharsets.UTF_8);
        }
    }

    /** An anonymous PUT that announces 8 MiB and sends one byte of it. */
    private static Socket openSlowClient(S3Target s3, int i) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(s3.endpoint().getHost(), s3.endpoint().getPort()), 10_000);
        s.setSoTimeout(10_000);
        OutputStream out = s.getOutputStream();
        out.write(("PUT /slow-clients/anonymous-" + i + " HTTP/1.1\r\nHost: " + s3.endpoint().getAuthority()
                + "\r\nContent-Length: " + (8 << 20) + "\r\n\r\nx").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return s;
    }

    private static void sendOneByte(Socket s) {
        try {
            s.getOutputStream().write('x');
            s.getOutputStream().flush();
        } catch (IOException closedByTheServer) {
            // the server may close a connection it answered; the client stops sending there
        }
    }

    /** The status line and headers the server sent on {@code s}, or what it had sent within the timeout. */
    private static String responseHead(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        StringBuilder head = new StringBuilder();
        try {
            int c;
            while ((c = in.read()) >= 0) {
                head.append((char) c);
                if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
                    break;
                }
            }
        } catch (SocketTimeoutException | java.net.SocketException e) {
            head.append(" [").append(e.getMessage()).append(']');
        }
        return head.toString();
    }
}
