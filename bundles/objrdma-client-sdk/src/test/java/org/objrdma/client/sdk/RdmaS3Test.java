package org.objrdma.client.sdk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.client.ClientMemory;
import org.objrdma.s3.rdma.RdmaSettings;
import org.objrdma.transport.tcp.StandaloneTcpTransport;
import org.objrdma.transport.tcp.TcpTransports;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.UploadPartRequest;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * {@link RdmaS3} end to end: a real {@link S3Client} and the client's own TCP transport against the gateway on a
 * loopback socket ({@link GatewayOnSocket}), both protocols. Every transfer is checked byte for byte against what a
 * plain HTTP GET of the same client returns, and the path the bytes took is checked to be the one claimed.
 */
class RdmaS3Test {
    /** Objects below this are declined on the cuObject path (rdma.min.bytes). */
    private static final long MIN_BYTES = 64;

    @TempDir
    Path dir;
    private GatewayOnSocket gw;
    private StandaloneTcpTransport transport;
    private S3Client s3;
    private Arena arena;

    @BeforeEach
    void start() throws Exception {
        gw = new GatewayOnSocket(dir, new RdmaSettings(MIN_BYTES, 1 << 20));
        transport = TcpTransports.startOnLoopback();
        s3 = gw.client(GatewayOnSocket.AK, GatewayOnSocket.SECRET);
        s3.createBucket(b -> b.bucket("bkt"));
        arena = Arena.ofShared();
    }

    @AfterEach
    void stop() throws Exception {
        Waits.until("staging back to zero", () -> gw.pool.stats().borrowed() == 0);
        Waits.until("facade channels freed", () -> gw.cuObj.allocatedChannelCount() == 0);
        s3.close();
        transport.close();
        gw.close();
        arena.close();
    }

    /** These tests exercise the RDMA path at every size: the client's own threshold off (1). */
    private RdmaS3 rdma(S3Client client, RdmaProtocol protocol) {
        return RdmaS3.create(client, transport, protocol, RdmaS3.DEFAULT_TIMEOUT, null, 1);
    }

    private ClientMemory memory(long size) throws Exception {
        return ClientMemory.register(transport, arena.allocate(Math.max(1, size), 4096));
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static void fill(ClientMemory mem, byte[] data) {
        MemorySegment.copy(data, 0, mem.segment(), ValueLayout.JAVA_BYTE, 0, data.length);
    }

    private static byte[] bytes(ClientMemory mem, long offset, long n) {
        return mem.segment().asSlice(offset, n).toArray(ValueLayout.JAVA_BYTE);
    }

    private byte[] httpGet(String key) {
        return s3.getObject(b -> b.bucket("bkt").key(key), ResponseTransformer.toBytes()).asByteArray();
    }

    @ParameterizedTest
    @EnumSource(value = RdmaProtocol.class, names = {"CUOBJ", "RC"})
    void putThenGetOverRdmaByteExact(RdmaProtocol protocol) throws Exception {
        for (int size : List.of(1, 4096, 8 << 20)) {
            // 1 B is below rdma.min.bytes: cuObject declines it (HTTP), RC has no threshold
            boolean declined = protocol == RdmaProtocol.CUOBJ && size < MIN_BYTES;
            byte[] data = random(size, size);
            String key = "obj-" + size;
            try (RdmaS3 rdma = rdma(s3, protocol); ClientMemory out = memory(size);
                    ClientMemory in = memory(size)) {
                fill(out, data);
                RdmaResult<PutObjectResponse> put = rdma.putObject(
                        PutObjectRequest.builder().bucket("bkt").key(key).build(), out, 0, size);
                assertEquals(declined ? RdmaProtocol.HTTP : protocol, put.path(), key + " PUT path");
                assertEquals(size, put.bytes());
                assertNotNull(put.response().eTag(), "ETag of the PUT");
                assertArrayEquals(data, httpGet(key), key + " stored byte-exact");

                RdmaResult<GetObjectResponse> get = rdma.getObject(
                        GetObjectRequest.builder().bucket("bkt").key(key).build(), in, 0);
                assertEquals(declined ? RdmaProtocol.HTTP : protocol, get.path(), key + " GET path");
                assertEquals(declined, get.fellBack());
                assertEquals(size, get.bytes());
                assertArrayEquals(data, bytes(in, 0, size), key + " read byte-exact");
                assertEquals(put.response().eTag(), s3.headObject(h -> h.bucket("bkt").key(key)).eTag());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = RdmaProtocol.class, names = {"CUOBJ", "RC"})
    void rangedGetLandsAtTheMemoryOffset(RdmaProtocol protocol) throws Exception {
        byte[] data = random(1 << 20, 7);
        s3.putObject(b -> b.bucket("bkt").key("r"), RequestBody.fromBytes(data));
        try (RdmaS3 rdma = rdma(s3, protocol); ClientMemory in = memory(1 << 20)) {
            RdmaResult<GetObjectResponse> r = rdma.getObject(
                    GetObjectRequest.builder().bucket("bkt").key("r").range("bytes=1000-300999").build(), in, 4096);
            assertEquals(protocol, r.path());
            assertEquals(300_000, r.bytes());
            assertArrayEquals(Arrays.copyOfRange(data, 1000, 301_000), bytes(in, 4096, 300_000));
            assertArrayEquals(new byte[4096], bytes(in, 0, 4096), "nothing written before the offset");
            // an open range: to the object's end
            RdmaResult<GetObjectResponse> tail = rdma.getObject(
                    GetObjectRequest.builder().bucket("bkt").key("r").range("bytes=1048000-").build(), in, 0);
            assertEquals(576, tail.bytes());
            assertArrayEquals(Arrays.copyOfRange(data, 1_048_000, 1 << 20), bytes(in, 0, 576));
        }
    }

    @ParameterizedTest
    @EnumSource(value = RdmaProtocol.class, names = {"CUOBJ", "RC"})
    void uploadPartsOverRdmaThenCompleteOverHttp(RdmaProtocol protocol) throws Exception {
        int part = 5 << 20; // the store's smallest part but the last
        byte[] data = random(part + 1000, 11);
        String id = s3.createMultipartUpload(b -> b.bucket("bkt").key("mp")).uploadId();
        try (RdmaS3 rdma = rdma(s3, protocol); ClientMemory out = memory(data.length)) {
            fill(out, data);
            RdmaResult<UploadPartResponse> p1 = rdma.uploadPart(UploadPartRequest.builder().bucket("bkt").key("mp")
                    .uploadId(id).partNumber(1).build(), out, 0, part);
            RdmaResult<UploadPartResponse> p2 = rdma.uploadPart(UploadPartRequest.builder().bucket("bkt").key("mp")
                    .uploadId(id).partNumber(2).build(), out, part, 1000);
            assertEquals(protocol, p1.path());
            assertEquals(protocol, p2.path());
            s3.completeMultipartUpload(b -> b.bucket("bkt").key("mp").uploadId(id).multipartUpload(m -> m.parts(
                    CompletedPart.builder().partNumber(1).eTag(p1.response().eTag()).build(),
                    CompletedPart.builder().partNumber(2).eTag(p2.response().eTag()).build())));
        }
        assertArrayEquals(data, httpGet("mp"));
    }

    @ParameterizedTest
    @EnumSource(value = RdmaProtocol.class, names = {"CUOBJ", "RC"})
    void partNumberGet(RdmaProtocol protocol) throws Exception {
        byte[] data = random(4096, 3);
        s3.putObject(b -> b.bucket("bkt").key("p"), RequestBody.fromBytes(data));
        try (RdmaS3 rdma = rdma(s3, protocol); ClientMemory in = memory(4096)) {
            RdmaResult<GetObjectResponse> r = rdma.getObject(
                    GetObjectRequest.builder().bucket("bkt").key("p").partNumber(1).build(), in, 0);
            // both protocols serve a part GET (RC since the gateway's GetPart over hipobj-rc-v2)
            assertEquals(protocol, r.path());
            assertEquals(false, r.fellBack(), String.valueOf(r.declineReason()));
            assertArrayEquals(data, bytes(in, 0, 4096));
        }
    }

    @org.junit.jupiter.api.Test
    void cuObjectDeclineBelowTheThresholdFallsBackToHttpBothWays() throws Exception {
        byte[] data = random((int) MIN_BYTES - 1, 5);
        try (RdmaS3 rdma = rdma(s3, RdmaProtocol.CUOBJ); ClientMemory mem = memory(4096)) {
            fill(mem, data);
            RdmaResult<PutObjectResponse> put = rdma.putObject(
                    PutObjectRequest.builder().bucket("bkt").key("small").build(), mem, 0, data.length);
            assertEquals(RdmaProtocol.HTTP, put.path());
            assertTrue(put.declineReason().contains("x-amz-rdma-reply: 501"), put.declineReason());
            mem.segment().fill((byte) 0);
            RdmaResult<GetObjectResponse> get = rdma.getObject(
                    GetObjectRequest.builder().bucket("bkt").key("small").build(), mem, 0);
            assertEquals(RdmaProtocol.HTTP, get.path());
            assertTrue(get.declineReason().contains("x-amz-rdma-reply: 501"), get.declineReason());
            assertArrayEquals(data, bytes(mem, 0, data.length));
        }
        assertArrayEquals(data, httpGet("small"));
    }

    /**
     * A gateway with {@code rdma.declined.put=200} (for Cloudian-style clients) answers a declined PUT with HTTP 200,
     * reply 501 and no ETag, and stores nothing: this client reads the reply, not the status, and PUTs again over HTTP.
     */
    @org.junit.jupiter.api.Test
    void aDeclinedPutAnsweredWith200IsSentAgainOverHttp() throws Exception {
        s3.close();
        gw.close();
        gw = new GatewayOnSocket(dir, new RdmaSettings(MIN_BYTES, 1 << 20)
                .withDeclinedPut(RdmaSettings.DeclinedPut.STATUS_200));
        s3 = gw.client(GatewayOnSocket.AK, GatewayOnSocket.SECRET);
        byte[] data = random((int) MIN_BYTES - 1, 6);
        try (RdmaS3 rdma = rdma(s3, RdmaProtocol.CUOBJ); ClientMemory mem = memory(4096)) {
            fill(mem, data);
            RdmaResult<PutObjectResponse> put = rdma.putObject(
                    PutObjectRequest.builder().bucket("bkt").key("small200").build(), mem, 0, data.length);
            assertEquals(RdmaProtocol.HTTP, put.path());
            assertTrue(put.declineReason().contains("x-amz-rdma-reply: 501"), put.declineReason());
            assertTrue(put.response().eTag() != null && !put.response().eTag().isBlank());
            String upload = s3.createMultipartUpload(b -> b.bucket("bkt").key("mp200")).uploadId();
            RdmaResult<software.amazon.awssdk.services.s3.model.UploadPartResponse> part = rdma.uploadPart(
                    software.amazon.awssdk.services.s3.model.UploadPartRequest.builder().bucket("bkt").key("mp200")
                            .uploadId(upload).partNumber(1).build(), mem, 0, data.length);
            assertEquals(RdmaProtocol.HTTP, part.path());
            assertTrue(part.response().eTag() != null && !part.response().eTag().isBlank());
            s3.abortMultipartUpload(b -> b.bucket("bkt").key("mp200").uploadId(upload));
        }
        assertArrayEquals(data, httpGet("small200"));
    }

    @ParameterizedTest
    @EnumSource(value = RdmaProtocol.class, names = {"CUOBJ", "RC"})
    void wrongSecretIsRefusedAndStoresNothing(RdmaProtocol protocol) throws Exception {
        try (S3Client wrong = gw.client(GatewayOnSocket.AK, "not-the-secret-0000000000000000000000000");
                RdmaS3 rdma = rdma(wrong, protocol); ClientMemory mem = memory(4096)) {
            RuntimeException e = assertThrows(RuntimeException.class, () -> rdma.putObject(
                    PutObjectRequest.builder().bucket("bkt").key("nope").build(), mem, 0, 4096));
            int status = e instanceof S3Exception s ? s.statusCode() : ((RdmaS3Exception) e).status();
            assertEquals(403, status, e.getMessage());
            assertTrue(e.getMessage().contains("SignatureDoesNotMatch") || e.getMessage().contains("signature"),
                    e.getMessage());
        }
        assertEquals(404, assertThrows(S3Exception.class, () -> httpGet("nope")).statusCode(), "nothing stored");
    }

    /**
     * Issue 30: the gateway's staging is busy for this principal (max.bytes.per.principal = 1 MiB, all of it held by
     * another transfer of the same principal): PREPARE answers 429 RdmaResourceLimit, the cuObject GET/PUT 503
     * SlowDown, both before any byte moved. The client moves the bytes over plain HTTP instead of failing, says
     * why in the result, and goes back to RDMA once the staging is free.
     */
    @ParameterizedTest
    @EnumSource(value = RdmaProtocol.class, names = {"CUOBJ", "RC"})
    void aBusyGatewaysBytesGoOverHttp(RdmaProtocol protocol) throws Exception {
        s3.close();
        gw.close();
        long perPrincipal = 1 << 20;
        gw = new GatewayOnSocket(dir, new RdmaSettings(MIN_BYTES, 1 << 20), GatewayOnSocket.smallStaging(perPrincipal));
        s3 = gw.client(GatewayOnSocket.AK, GatewayOnSocket.SECRET);
        s3.createBucket(b -> b.bucket("bkt"));
        int size = 256 << 10;
        byte[] data = random(size, 30);
        String busyAnswer = protocol == RdmaProtocol.RC ? "busy: 429 RdmaResourceLimit" : "busy: 503 SlowDown";
        try (RdmaS3 rdma = rdma(s3, protocol); ClientMemory out = memory(size); ClientMemory in = memory(size)) {
            fill(out, data);
            try (StagingLease held = gw.holdStaging(perPrincipal)) {
                RdmaResult<PutObjectResponse> put = rdma.putObject(
                        PutObjectRequest.builder().bucket("bkt").key("busy").build(), out, 0, size);
                assertEquals(RdmaProtocol.HTTP, put.path(), "PUT path");
                assertTrue(put.fellBack());
                assertTrue(put.declineReason().startsWith(busyAnswer), put.declineReason());
                assertNotNull(put.response().eTag());
                assertArrayEquals(data, httpGet("busy"), "stored byte-exact");

                RdmaResult<GetObjectResponse> get = rdma.getObject(
                        GetObjectRequest.builder().bucket("bkt").key("busy").build(), in, 0);
                assertEquals(RdmaProtocol.HTTP, get.path(), "GET path");
                assertTrue(get.declineReason().startsWith(busyAnswer), get.declineReason());
                assertEquals(size, get.bytes());
                assertArrayEquals(data, bytes(in, 0, size), "read byte-exact");
                assertEquals(1, gw.pool.stats().borrowed(), "only the held lease: nothing leaked by the refusals");
            }
            // the staging free again: the same client is back on RDMA
            in.segment().fill((byte) 0);
            RdmaResult<GetObjectResponse> again = rdma.getObject(
                    GetObjectRequest.builder().bucket("bkt").key("busy").build(), in, 0);
            assertEquals(protocol, again.path(), String.valueOf(again.declineReason()));
            assertArrayEquals(data, bytes(in, 0, size));
        }
    }

    @org.junit.jupiter.api.Test
    void badArgumentsAreRefusedBeforeAnythingIsSent() throws Exception {
        try (RdmaS3 rdma = rdma(s3, RdmaProtocol.CUOBJ); ClientMemory mem = memory(4096)) {
            assertThrows(IllegalArgumentException.class, () -> rdma.putObject(
                    PutObjectRequest.builder().bucket("bkt").key("x").build(), mem, 1, 4096));
            assertThrows(IllegalArgumentException.class, () -> rdma.getObject(
                    GetObjectRequest.builder().bucket("bkt").key("x").range("bytes=-5").build(), mem, 0));
            assertThrows(IllegalArgumentException.class, () -> rdma.getObject(
                    GetObjectRequest.builder().bucket("bkt").key("x").range("bytes=0-8191").build(), mem, 0));
        }
        assertNull(s3.listObjectsV2(b -> b.bucket("bkt")).contents().stream().findAny().orElse(null));
    }

    /**
     * The client's rdma.min.bytes: below it the bytes go plain HTTP without asking for RDMA, at it they go over
     * RDMA. Counted on the server (staging borrows: every RDMA transfer leases staging memory, plain HTTP none), not
     * timed. The gateway's own threshold (64 B here) is far below, so no decline is involved.
     */
    @ParameterizedTest
    @EnumSource(value = RdmaProtocol.class, names = {"CUOBJ", "RC"})
    void belowTheClientsMinBytesGoesPlainHttpAtItOverRdma(RdmaProtocol protocol) throws Exception {
        long min = 64 * 1024;
        assertEquals(RdmaS3.DEFAULT_MIN_BYTES, RdmaS3.create(s3, transport, protocol).minBytes());
        assertThrows(IllegalArgumentException.class,
                () -> RdmaS3.create(s3, transport, protocol, RdmaS3.DEFAULT_TIMEOUT, null, 0));
        try (RdmaS3 rdma = RdmaS3.create(s3, transport, protocol, RdmaS3.DEFAULT_TIMEOUT, null, min);
                ClientMemory mem = memory(min)) {
            for (long size : List.of(min - 1, min)) {
                boolean plain = size < min;
                byte[] data = random((int) size, size);
                fill(mem, data);
                String key = "min-" + size;
                long before = gw.pool.stats().borrows();
                RdmaResult<PutObjectResponse> put = rdma.putObject(
                        PutObjectRequest.builder().bucket("bkt").key(key).build(), mem, 0, size);
                assertEquals(plain ? RdmaProtocol.HTTP : protocol, put.path(), key + " PUT path");
                assertNull(put.declineReason(), "the client's choice is no decline");
                assertEquals(plain ? 0 : 1, gw.pool.stats().borrows() - before, key + " PUT: staging borrows");
                assertArrayEquals(data, httpGet(key));

                mem.segment().fill((byte) 0);
                before = gw.pool.stats().borrows();
                // a closed range: the size is known before anything is sent
                RdmaResult<GetObjectResponse> get = rdma.getObject(GetObjectRequest.builder().bucket("bkt").key(key)
                        .range("bytes=0-" + (size - 1)).build(), mem, 0);
                assertEquals(plain ? RdmaProtocol.HTTP : protocol, get.path(), key + " GET path");
                assertFalse(get.fellBack());
                assertEquals(plain ? 0 : 1, gw.pool.stats().borrows() - before, key + " GET: staging borrows");
                assertArrayEquals(data, bytes(mem, 0, size), key + " read byte-exact");
            }
        }
        // no range, memory smaller than the threshold: the object cannot be larger, so plain HTTP, no HEAD first
        try (RdmaS3 rdma = RdmaS3.create(s3, transport, protocol, RdmaS3.DEFAULT_TIMEOUT, null, min);
                ClientMemory small = memory(min - 1)) {
            long before = gw.pool.stats().borrows();
            RdmaResult<GetObjectResponse> get = rdma.getObject(
                    GetObjectRequest.builder().bucket("bkt").key("min-" + (min - 1)).build(), small, 0);
            assertEquals(RdmaProtocol.HTTP, get.path());
            assertEquals(min - 1, get.bytes());
            assertEquals(0, gw.pool.stats().borrows() - before);
        }
    }
}
