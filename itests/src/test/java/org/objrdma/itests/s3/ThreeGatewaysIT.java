package org.objrdma.itests.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.RcClient;
import org.objrdma.client.RcOutcome;
import org.objrdma.client.RcTransfer;
import org.objrdma.itests.KarafHome;
import org.objrdma.s3.rdma.RdmaHeaders;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;
import org.objrdma.wire.RcToken;
import org.objrdma.wire.RcTokenCodec;
import org.objrdma.wire.RcTokenCodecs;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * Three objrdma distributions (nodes a, b, c; {@code bin/karaf server} each, as child processes) in front of
 * one s3proxy in this JVM (filesystem backend), each with {@code objrdma-store-s3} booted and pinned as the
 * gateway's store: plain S3 through the adapter inside Karaf (bucket, put, list, multipart and its part
 * layout, served by another node than the writer), a GET over hipobj-rc-v2 (the Java {@code RcClient} over a
 * TCP transport in this JVM) through another node than the writer, a READY sent to the wrong node redirected
 * (307) to the owner and followed, and a node killed with SIGKILL mid-session: its session fails at the client
 * within a bound, its READY is refused, the others keep serving.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ThreeGatewaysIT {
    private static final String BUCKET = "shared";
    private static final int OBJECT = 4 << 20;

    private static S3ProxyServer store;
    private static final Map<String, FleetNode> nodes = new java.util.LinkedHashMap<>();
    private static TcpTransport clientTransport;
    private static RcClient rc;
    private static final Arena arena = Arena.ofShared();
    private static byte[] object;

    @BeforeAll
    static void startFleet() throws Exception {
        Path base = Path.of("target", "fleet").toAbsolutePath();
        KarafHome.deleteTree(base);
        store = S3ProxyServer.start(java.nio.file.Files.createDirectories(base.resolve("s3proxy")));
        try (S3Client remote = S3Client.builder().endpointOverride(store.target().endpoint())
                .region(software.amazon.awssdk.regions.Region.of(S3ProxyServer.REGION)).forcePathStyle(true)
                .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY,
                                S3ProxyServer.SECRET_KEY))).build()) {
            remote.listBuckets(); // s3proxy answers before any gateway boots
        }
        for (String id : List.of("a", "b", "c")) {
            nodes.put(id, FleetNode.unpack(id, base.resolve(id)));
        }
        List<String> list = new ArrayList<>();
        nodes.values().forEach(n -> list.add(n.id + "=" + n.endpoint()));
        String fleet = String.join(",", list); // the same line in every node's etc/
        for (FleetNode n : nodes.values()) {
            n.configure(fleet, store.target());
            n.start(); // all three boot at once
        }
        for (FleetNode n : nodes.values()) {
            n.awaitServing();
        }
        clientTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        rc = new RcClient(clientTransport, Duration.ofSeconds(15));
        object = new byte[OBJECT];
        new Random(19).nextBytes(object);
    }

    @AfterAll
    static void stopFleet() throws Exception {
        nodes.values().forEach(FleetNode::close);
        if (clientTransport != null) {
            clientTransport.close();
        }
        arena.close();
        if (store != null) {
            store.close();
        }
    }

    private static FleetNode node(String id) {
        return nodes.get(id);
    }

    @Test
    @Order(1)
    void plainS3ThroughTheAdapterInKarafIsSharedByEveryNode() throws Exception {
        try (S3Client a = node("a").sdk(); S3Client b = node("b").sdk(); S3Client c = node("c").sdk()) {
            a.createBucket(x -> x.bucket(BUCKET));
            a.putObject(x -> x.bucket(BUCKET).key("obj"), RequestBody.fromBytes(object));
            assertArrayEquals(object, b.getObject(x -> x.bucket(BUCKET).key("obj"), ResponseTransformer.toBytes())
                    .asByteArray(), "written through a, read through b");
            assertEquals(List.of("obj"), c.listObjectsV2(x -> x.bucket(BUCKET)).contents().stream()
                    .map(o -> o.key()).toList());
            assertTrue(c.listBuckets().buckets().stream().anyMatch(x -> x.name().equals(BUCKET)));

            // a multipart object written through c; its part layout (recorded by the adapter) served by b
            byte[] first = new byte[5 << 20];
            new Random(20).nextBytes(first);
            byte[] second = java.util.Arrays.copyOf(object, 1000);
            String upload = c.createMultipartUpload(x -> x.bucket(BUCKET).key("mp")).uploadId();
            String e1 = c.uploadPart(x -> x.bucket(BUCKET).key("mp").uploadId(upload).partNumber(1),
                    RequestBody.fromBytes(first)).eTag();
            String e2 = c.uploadPart(x -> x.bucket(BUCKET).key("mp").uploadId(upload).partNumber(2),
                    RequestBody.fromBytes(second)).eTag();
            c.completeMultipartUpload(x -> x.bucket(BUCKET).key("mp").uploadId(upload).multipartUpload(m -> m.parts(
                    CompletedPart.builder().partNumber(1).eTag(e1).build(),
                    CompletedPart.builder().partNumber(2).eTag(e2).build())));
            var part2 = b.getObject(x -> x.bucket(BUCKET).key("mp").partNumber(2), ResponseTransformer.toBytes());
            assertArrayEquals(second, part2.asByteArray());
            assertEquals(2, part2.response().partsCount());
            assertEquals((long) first.length, b.headObject(x -> x.bucket(BUCKET).key("mp").partNumber(1)).contentLength());
        }
    }

    /** A PREPARE's answer and the transfer it belongs to. */
    private record Prepared(RcTransfer transfer, PrepareResponse prepare) {
        String session() {
            return prepare.sessionId().hex();
        }
    }

    private static Map<String, String> rcHeaders(String... nameValue) {
        Map<String, String> h = RawS3.headers(nameValue);
        h.put(RdmaHeaders.PROTOCOL, RdmaHeaders.RC_PROTOCOL);
        return h;
    }

    private static Prepared prepareGet(FleetNode n, ClientMemory mem, String target, int size) throws Exception {
        RcTransfer tr = rc.begin(Op.GET, mem, 0, size);
        RawS3.Response r = new RawS3(n.target()).signed("POST", "/.hipobj-rc/prepare", null, rcHeaders(
                RdmaHeaders.OP, "GET", RdmaHeaders.TARGET, target, RdmaHeaders.SIZE, String.valueOf(size),
                RdmaHeaders.OFFSET, "0", RdmaHeaders.PSN, Integer.toHexString(tr.psn()),
                RdmaHeaders.COOKIE, Integer.toHexString(tr.cookie()), RdmaHeaders.TOKEN, tr.token(),
                RdmaHeaders.CHANNEL_KEY, HexFormat.of().formatHex(tr.channelKey())), new byte[0]);
        if (r.status() != 200) {
            tr.close();
            throw new AssertionError("PREPARE on " + n.id + ": " + r);
        }
        String reply = r.headers().firstValue(RdmaHeaders.REPLY).orElseThrow();
        RcToken token = RcToken.parse(reply.substring("200:".length())).value();
        byte[] key = HexFormat.of().parseHex(r.headers().firstValue(RdmaHeaders.CHANNEL_KEY).orElseThrow());
        int psn = Integer.parseInt(r.headers().firstValue(RdmaHeaders.PSN).orElseThrow(), 16);
        EndpointInfo server = RcTokenCodecs.decode(token, new RcTokenCodec.Context(psn, Mtu.MTU_4096, key)).value();
        RemoteRegion staging = new RemoteRegion(Long.parseUnsignedLong(r.headers().firstValue(RdmaHeaders.MR_ADDR)
                .orElseThrow(), 16), size, (int) Long.parseLong(r.headers().firstValue(RdmaHeaders.MR_RKEY).orElseThrow(), 16));
        return new Prepared(tr, new PrepareResponse(new SessionId(r.headers().firstValue(RdmaHeaders.SESSION)
                .orElseThrow()), server, staging));
    }

    private static RawS3.Response ready(S3Target to, Prepared p) throws Exception {
        return new RawS3(to).signed("POST", "/.hipobj-rc/ready", null, rcHeaders(RdmaHeaders.SESSION, p.session(),
                RdmaHeaders.COOKIE, Integer.toHexString(p.transfer().cookie()),
                RdmaHeaders.QPN, Long.toHexString(p.transfer().clientEndpoint().queueNumber())), new byte[0]);
    }

    /** The data phase with READY sent to {@code to}; asserts the bytes arrived. */
    private static void transferThrough(S3Target to, Prepared p, ClientMemory mem) throws Exception {
        CompletableFuture<RcOutcome> data = p.transfer().start(p.prepare());
        RawS3.Response r = ready(to, p);
        assertEquals(200, r.status(), r.toString());
        assertEquals(String.valueOf(OBJECT), r.headers().firstValue(RdmaHeaders.BYTES_TRANSFERRED).orElseThrow());
        RcOutcome outcome = data.get(30, TimeUnit.SECONDS);
        assertTrue(outcome.ok(), outcome.toString());
        assertArrayEquals(object, mem.segment().asSlice(0, OBJECT).toArray(ValueLayout.JAVA_BYTE));
        p.transfer().close();
    }

    private static ClientMemory memory() throws Exception {
        MemorySegment seg = arena.allocate(OBJECT, 4096);
        return ClientMemory.register(clientTransport, seg);
    }

    @Test
    @Order(2)
    void rdmaGetThroughAnotherNodeThanTheWriter() throws Exception {
        try (ClientMemory mem = memory()) {
            Prepared p = prepareGet(node("b"), mem, "/" + BUCKET + "/obj", OBJECT);
            transferThrough(node("b").target(), p, mem);
        }
    }

    @Test
    @Order(3)
    void readySentToTheWrongNodeIsRedirectedToTheOwnerAndFollowed() throws Exception {
        try (ClientMemory mem = memory()) {
            Prepared p = prepareGet(node("b"), mem, "/" + BUCKET + "/obj", OBJECT);
            RawS3.Response wrong = ready(node("c").target(), p);
            assertEquals(307, wrong.status(), wrong.toString());
            String location = wrong.headers().firstValue("Location").orElseThrow();
            assertEquals(node("b").endpoint() + "/.hipobj-rc/ready", location);
            // follow: the same READY, signed again for the owner's host
            java.net.URI owner = java.net.URI.create(location);
            transferThrough(new S3Target(java.net.URI.create(owner.getScheme() + "://" + owner.getRawAuthority()),
                    FleetNode.ACCESS_KEY, FleetNode.SECRET_KEY, S3ProxyServer.REGION), p, mem);
        }
    }

    /**
     * Opt-in measurement ({@code -Dobjrdma.fleet.bench=true}), not a test: GET throughput of the 4 MiB object
     * through one gateway, over hipobj-rc-v2 and over plain HTTP (the reference, same gateway, same store, same
     * run), then over hipobj-rc-v2 through two gateways at once. Prints MB/s and the ratios; asserts nothing
     * about speed. On one host the gateways, s3proxy and the client share the CPUs, so the two-gateway figure
     * shows what one host can do, not what two machines would.
     */
    @Test
    @Order(4)
    void measureGetThroughputPerGateway() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Boolean.getBoolean("objrdma.fleet.bench"), "-Dobjrdma.fleet.bench=true");
        int rounds = Integer.getInteger("objrdma.fleet.bench.rounds", 40);
        try (ClientMemory mem = memory()) {
            double rcOne = rounds(rounds, () -> rcGet(node("a"), mem));
            double httpOne;
            try (S3Client a = node("a").sdk()) {
                httpOne = rounds(rounds, () -> a.getObject(x -> x.bucket(BUCKET).key("obj"), ResponseTransformer.toBytes()));
            }
            try (ClientMemory second = memory()) {
                long start = System.nanoTime();
                CompletableFuture<Void> onB = CompletableFuture.runAsync(() -> {
                    try {
                        rounds(rounds, () -> rcGet(node("b"), second));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                rounds(rounds, () -> rcGet(node("a"), mem));
                onB.join();
                double rcTwo = 2.0 * rounds * OBJECT / ((System.nanoTime() - start) / 1e9) / 1e6;
                System.out.printf("fleet bench (%d x %d MiB GETs): RC through one gateway %.0f MB/s, HTTP through it %.0f MB/s"
                        + " (RC/HTTP %.2f); RC through two gateways at once %.0f MB/s aggregate (ratio to one %.2f)%n",
                        rounds, OBJECT >> 20, rcOne, httpOne, rcOne / httpOne, rcTwo, rcTwo / rcOne);
            }
        }
    }

    private interface Round {
        void run() throws Exception;
    }

    /** MB/s of {@code n} runs of {@code round}, each moving the object once, after two warm-up runs. */
    private static double rounds(int n, Round round) throws Exception {
        round.run();
        round.run();
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            round.run();
        }
        return (double) n * OBJECT / ((System.nanoTime() - start) / 1e9) / 1e6;
    }

    private static void rcGet(FleetNode n, ClientMemory mem) throws Exception {
        Prepared p = prepareGet(n, mem, "/" + BUCKET + "/obj", OBJECT);
        CompletableFuture<RcOutcome> data = p.transfer().start(p.prepare());
        RawS3.Response r = ready(n.target(), p);
        RcOutcome outcome = data.get(30, TimeUnit.SECONDS);
        p.transfer().close();
        if (r.status() != 200 || !outcome.ok()) {
            throw new AssertionError("RC GET through " + n.id + ": " + r + " / " + outcome);
        }
    }

    @Test
    @Order(5)
    void aNodeKilledMidSessionFailsItsSessionCleanlyAndTheOthersServeOn() throws Exception {
        try (ClientMemory mem = memory()) {
            Prepared p = prepareGet(node("c"), mem, "/" + BUCKET + "/obj", OBJECT);
            CompletableFuture<RcOutcome> data = p.transfer().start(p.prepare()); // connected to c, waiting
            node("c").kill();
            RcOutcome outcome = data.get(60, TimeUnit.SECONDS);
            assertFalse(outcome.ok(), "the data phase of a session on a killed node cannot succeed: " + outcome);
            assertThrows(IOException.class, () -> ready(node("c").target(), p), "nothing listens on c any more");
            RawS3.Response elsewhere = ready(node("a").target(), p);
            assertEquals(307, elsewhere.status(), "a still names c as the owner: " + elsewhere);
            assertEquals(node("c").endpoint() + "/.hipobj-rc/ready", elsewhere.headers().firstValue("Location").orElseThrow());
            p.transfer().close();
        }
        try (ClientMemory mem = memory()) {
            transferThrough(node("a").target(), prepareGet(node("a"), mem, "/" + BUCKET + "/obj", OBJECT), mem);
        }
        try (S3Client b = node("b").sdk()) {
            assertArrayEquals(object, b.getObject(x -> x.bucket(BUCKET).key("obj"), ResponseTransformer.toBytes())
                    .asByteArray(), "b serves on");
        }
    }
}
