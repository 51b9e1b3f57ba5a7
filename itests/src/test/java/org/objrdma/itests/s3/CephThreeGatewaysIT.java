package org.objrdma.itests.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.objrdma.testsupport.CephScript;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
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
import org.objrdma.client.CuObjAgent;
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
 * Three objrdma distributions (nodes a, b, c, {@code bin/karaf server} each) in front of a real Ceph
 * ({@code scripts/ceph.sh}: RADOS with 3 OSDs, pool size 3, and 2 RGWs, both RGWs in every node's adapter
 * {@code endpoint} list). Objects put through a over plain S3, cuObject and hipobj-rc-v2 are read through b (plain
 * S3, hipobj-rc-v2) and c (plain S3) byte-exact, and a cuObject object through c and b over cuObject (one
 * client agent, a channel per gateway: {@code CuObjAgent#get(String, ...)}); a multipart upload's parts go through a, b and c. Then the faults, each under a PUT/GET load through
 * the gateways, each followed by the audit (every acknowledged write reads back byte-exact, every listed object is
 * whole, every live node's staging pool lent 0 with no double return, no live session): an OSD SIGKILLed and
 * restarted, the adapters' preferred RGW SIGKILLed and restarted, gateway c SIGKILLed. Skipped with the reason when no
 * cluster runs; {@code -Pceph} starts one (and stops it after).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CephThreeGatewaysIT {
    private static final int OBJECT = 4 << 20;
    private static final int LOAD_OBJECT = 256 << 10;
    private static final Duration CALL_BOUND = Duration.ofSeconds(120);

    private static CephScript ceph;
    private static String bucket;
    private static final Map<String, FleetNode> nodes = new LinkedHashMap<>();
    private static TcpTransport clientTransport;
    private static RcClient rc;
    private static CuObjAgent agent;
    private static final Arena arena = Arena.ofShared();

    @BeforeAll
    static void startFleet() throws Exception {
        try {
            ceph = CephScript.find();
        } catch (CephScript.NoCluster none) {
            Assumptions.abort(none.getMessage());
        }
        String run = Long.toString(System.currentTimeMillis() % 10_000_000, 36);
        bucket = "ceph-" + run;
        Path base = Path.of("target", "ceph-fleet").toAbsolutePath();
        KarafHome.deleteTree(base);
        for (String id : List.of("a", "b", "c")) {
            nodes.put(id, FleetNode.unpack(id, base.resolve(id)));
        }
        List<String> list = new ArrayList<>();
        nodes.values().forEach(n -> list.add(n.id + "=" + n.endpoint()));
        String fleet = String.join(",", list);
        S3Target store = new S3Target(ceph.endpoints().getFirst(), ceph.accessKey(), ceph.secretKey(), "us-east-1");
        String endpoints = String.join(",", ceph.endpoints().stream().map(Object::toString).toList());
        for (FleetNode n : nodes.values()) {
            // bounded failover: a dead RGW costs at most 2 attempts of 5 s connect / 30 s read before the other
            n.configure(fleet, endpoints, store, "fl" + run + "-");
            java.nio.file.Files.writeString(n.home().resolve("etc/org.objrdma.store.s3.cfg"),
                    "\nmax.retries = 1\nread.timeout.ms = 30000\n", java.nio.file.StandardOpenOption.APPEND);
            n.start();
        }
        for (FleetNode n : nodes.values()) {
            n.awaitServing();
        }
        clientTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        rc = new RcClient(clientTransport, Duration.ofSeconds(15));
        agent = CuObjAgent.openForPrincipal(clientTransport, FleetNode.SECRET_KEY);
        try (S3Client a = sdk("a")) {
            a.createBucket(x -> x.bucket(bucket));
        }
    }

    @AfterAll
    static void stopFleet() {
        try {
            nodes.values().forEach(FleetNode::close);
            if (agent != null) {
                agent.close();
            }
            if (clientTransport != null) {
                clientTransport.close();
            }
            arena.close();
        } finally {
            if (ceph != null) {
                ceph.close();
            }
        }
    }

    private static S3Client sdk(String node) {
        return S3Client.builder().endpointOverride(nodes.get(node).endpoint())
                .region(software.amazon.awssdk.regions.Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(FleetNode.ACCESS_KEY,
                                FleetNode.SECRET_KEY)))
                .overrideConfiguration(o -> o.apiCallTimeout(CALL_BOUND))
                .build();
    }

    static byte[] random(long seed, int size) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] sdkGet(String node, String key) {
        try (S3Client c = sdk(node)) {
            return c.getObject(x -> x.bucket(bucket).key(key), ResponseTransformer.toBytes()).asByteArray();
        }
    }

    // ---------------------------------------------------------------- the three protocols

    private static ClientMemory memory(byte[] content, int size) throws Exception {
        MemorySegment seg = arena.allocate(size, 4096);
        if (content != null) {
            MemorySegment.copy(content, 0, seg, ValueLayout.JAVA_BYTE, 0, size);
        }
        return ClientMemory.register(clientTransport, seg);
    }

    private static void cuObjPut(String node, String key, byte[] content) throws Exception {
        RawS3 http = new RawS3(nodes.get(node).target());
        try (ClientMemory mem = memory(content, content.length)) {
            AtomicInteger status = new AtomicInteger();
            // the agent channel of each gateway (CuObjAgent: a channel serves the first server that dials it)
            long moved = agent.put(nodes.get(node).endpoint().toString(), mem, 0, content.length, req -> {
                try {
                    RawS3.Response r = http.signed("PUT", "/" + bucket + "/" + key, null,
                            RawS3.headers("x-amz-rdma-token", req.headerValue()), new byte[0]);
                    status.set(r.status());
                    return r.status() == 200 ? req.size() : -5;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertEquals(200, status.get(), "cuObject PUT through " + node);
            assertEquals(content.length, moved);
        }
    }

    private static byte[] cuObjGet(String node, String key, int size) throws Exception {
        RawS3 http = new RawS3(nodes.get(node).target());
        try (ClientMemory mem = memory(null, size)) {
            long moved = agent.get(nodes.get(node).endpoint().toString(), mem, 0, size, req -> {
                try {
                    RawS3.Response r = http.signed("GET", "/" + bucket + "/" + key, null,
                            RawS3.headers("x-amz-rdma-token", req.headerValue()), new byte[0]);
                    if (r.status() != 200) {
                        System.out.println("cuObject GET through " + node + ": " + r);
                    }
                    return r.headers().firstValue("x-amz-rdma-bytes-transferred").map(Long::parseLong).orElse(-5L);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertEquals(size, moved, "cuObject GET through " + node);
            return mem.segment().asSlice(0, size).toArray(ValueLayout.JAVA_BYTE);
        }
    }

    private static Map<String, String> rcHeaders(String... nameValue) {
        Map<String, String> h = RawS3.headers(nameValue);
        h.put(RdmaHeaders.PROTOCOL, RdmaHeaders.RC_PROTOCOL);
        return h;
    }

    /** One hipobj-rc-v2 transfer through {@code node}: PREPARE, the data phase, READY; asserts success. */
    private static void rcTransfer(String node, Op op, String key, ClientMemory mem, int size) throws Exception {
        RawS3 http = new RawS3(nodes.get(node).target());
        RcTransfer tr = rc.begin(op, mem, 0, size);
        try {
            RawS3.Response r = http.signed("POST", "/.hipobj-rc/prepare", null, rcHeaders(
                    RdmaHeaders.OP, op.name(), RdmaHeaders.TARGET, "/" + bucket + "/" + key,
                    RdmaHeaders.SIZE, String.valueOf(size), RdmaHeaders.OFFSET, "0",
                    RdmaHeaders.PSN, Integer.toHexString(tr.psn()), RdmaHeaders.COOKIE, Integer.toHexString(tr.cookie()),
                    RdmaHeaders.TOKEN, tr.token(), RdmaHeaders.CHANNEL_KEY, HexFormat.of().formatHex(tr.channelKey())),
                    new byte[0]);
            assertEquals(200, r.status(), "PREPARE " + op + " on " + node + ": " + r);
            String reply = r.headers().firstValue(RdmaHeaders.REPLY).orElseThrow();
            RcToken token = RcToken.parse(reply.substring("200:".length())).value();
            byte[] channelKey = HexFormat.of().parseHex(r.headers().firstValue(RdmaHeaders.CHANNEL_KEY).orElseThrow());
            int psn = Integer.parseInt(r.headers().firstValue(RdmaHeaders.PSN).orElseThrow(), 16);
            EndpointInfo server = RcTokenCodecs.decode(token, new RcTokenCodec.Context(psn, Mtu.MTU_4096, channelKey)).value();
            RemoteRegion staging = new RemoteRegion(Long.parseUnsignedLong(r.headers().firstValue(RdmaHeaders.MR_ADDR)
                    .orElseThrow(), 16), size, (int) Long.parseLong(r.headers().firstValue(RdmaHeaders.MR_RKEY).orElseThrow(), 16));
            String session = r.headers().firstValue(RdmaHeaders.SESSION).orElseThrow();
            CompletableFuture<RcOutcome> data = tr.start(new PrepareResponse(new SessionId(session), server, staging));
            RawS3.Response ready = http.signed("POST", "/.hipobj-rc/ready", null, rcHeaders(RdmaHeaders.SESSION, session,
                    RdmaHeaders.COOKIE, Integer.toHexString(tr.cookie()),
                    RdmaHeaders.QPN, Long.toHexString(tr.clientEndpoint().queueNumber())), new byte[0]);
            assertEquals(200, ready.status(), "READY " + op + " on " + node + ": " + ready);
            RcOutcome outcome = data.get(60, TimeUnit.SECONDS);
            assertTrue(outcome.ok(), outcome.toString());
        } finally {
            tr.close();
        }
    }

    @Test
    @Order(1)
    void putThroughAOverPlainS3AndCuObjectReadThroughBAndCByteExact() throws Exception {
        byte[] plain = random(1, OBJECT);
        byte[] cuobj = random(2, OBJECT);
        try (S3Client a = sdk("a")) {
            a.putObject(x -> x.bucket(bucket).key("plain"), RequestBody.fromBytes(plain));
        }
        cuObjPut("a", "cuobj", cuobj);
        readThroughBAndC(Map.of("plain", plain, "cuobj", cuobj));
        audit("after the plain S3 and cuObject puts");
    }

    @Test
    @Order(2)
    void putThroughAOverRcReadThroughBAndCByteExact() throws Exception {
        byte[] overRc = random(3, OBJECT);
        try (ClientMemory mem = memory(overRc, OBJECT)) {
            rcTransfer("a", Op.PUT, "rc", mem, OBJECT);
        }
        readThroughBAndC(Map.of("rc", overRc));
        audit("after the hipobj-rc-v2 put");
    }

    /** Each object read through b over plain S3 and hipobj-rc-v2, through c over plain S3. */
    private static void readThroughBAndC(Map<String, byte[]> written) throws Exception {
        for (Map.Entry<String, byte[]> e : written.entrySet()) {
            assertArrayEquals(e.getValue(), sdkGet("b", e.getKey()), e.getKey() + " read through b over plain S3");
            try (ClientMemory mem = memory(null, OBJECT)) {
                rcTransfer("b", Op.GET, e.getKey(), mem, OBJECT);
                assertArrayEquals(e.getValue(), mem.segment().asSlice(0, OBJECT).toArray(ValueLayout.JAVA_BYTE),
                        e.getKey() + " read through b over hipobj-rc-v2");
            }
            assertArrayEquals(e.getValue(), sdkGet("c", e.getKey()), e.getKey() + " read through c over plain S3");
        }
    }

    @Test
    @Order(3)
    void cuObjectGetThroughAnotherGatewayThanTheWriter() throws Exception {
        byte[] data = random(4, OBJECT);
        cuObjPut("a", "cuobj-read", data);
        assertArrayEquals(data, cuObjGet("c", "cuobj-read", OBJECT), "read through c over cuObject");
        assertArrayEquals(data, cuObjGet("b", "cuobj-read", OBJECT), "read through b over cuObject");
    }

    @Test
    @Order(4)
    void aMultipartUploadWhosePartsGoThroughDifferentGatewaysCompletes() throws Exception {
        byte[] p1 = random(11, 5 << 20);
        byte[] p2 = random(12, 5 << 20);
        byte[] p3 = random(13, 1 << 20);
        try (S3Client a = sdk("a"); S3Client b = sdk("b"); S3Client c = sdk("c")) {
            String upload = a.createMultipartUpload(x -> x.bucket(bucket).key("mp")).uploadId();
            String e1 = a.uploadPart(x -> x.bucket(bucket).key("mp").uploadId(upload).partNumber(1), RequestBody.fromBytes(p1)).eTag();
            String e2 = b.uploadPart(x -> x.bucket(bucket).key("mp").uploadId(upload).partNumber(2), RequestBody.fromBytes(p2)).eTag();
            String e3 = c.uploadPart(x -> x.bucket(bucket).key("mp").uploadId(upload).partNumber(3), RequestBody.fromBytes(p3)).eTag();
            assertEquals(3, b.listParts(x -> x.bucket(bucket).key("mp").uploadId(upload)).parts().size());
            c.completeMultipartUpload(x -> x.bucket(bucket).key("mp").uploadId(upload).multipartUpload(m -> m.parts(
                    CompletedPart.builder().partNumber(1).eTag(e1).build(),
                    CompletedPart.builder().partNumber(2).eTag(e2).build(),
                    CompletedPart.builder().partNumber(3).eTag(e3).build())));
            byte[] whole = new byte[p1.length + p2.length + p3.length];
            System.arraycopy(p1, 0, whole, 0, p1.length);
            System.arraycopy(p2, 0, whole, p1.length, p2.length);
            System.arraycopy(p3, 0, whole, p1.length + p2.length, p3.length);
            assertArrayEquals(whole, sdkGet("b", "mp"));
            var part2 = a.getObject(x -> x.bucket(bucket).key("mp").partNumber(2), ResponseTransformer.toBytes());
            assertArrayEquals(p2, part2.asByteArray(), "the part layout, recorded in Ceph, served by another node");
            assertEquals(3, part2.response().partsCount());
        }
        audit("after the multipart upload");
    }

    /**
     * Opt-in measurement ({@code -Dobjrdma.ceph.bench=true}), not a test: plain S3 PUT and GET at 4 KiB and 64 MiB
     * through gateway a and directly on the first RGW, with the same SDK client settings on both paths, side by side:
     * each object is PUT on both paths, then GET on both paths (which path goes first alternates object by object),
     * so both paths see the same moment of a shared machine. A round is {@code objrdma.ceph.bench.small} operations of each kind at 4 KiB (default 40) or
     * one at 64 MiB; there are {@code objrdma.ceph.bench.rounds} rounds (default 8, after one warm-up round). Prints,
     * per size and operation, the gateway/direct throughput ratio of each round (min / median / max) and the MB/s
     * of both paths over all rounds; asserts nothing about speed.
     */
    @Test
    @Order(5)
    void measurePlainS3ThroughAGatewayAgainstDirectlyOnRgw() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("objrdma.ceph.bench"), "-Dobjrdma.ceph.bench=true");
        String direct = "fig-direct-" + bucket;
        try (S3Client rgw = benchClient(ceph.endpoints().getFirst(), ceph.accessKey(), ceph.secretKey());
                S3Client gw = benchClient(nodes.get("a").endpoint(), FleetNode.ACCESS_KEY, FleetNode.SECRET_KEY)) {
            rgw.createBucket(x -> x.bucket(direct));
            int rounds = Integer.getInteger("objrdma.ceph.bench.rounds", 8);
            for (int size : new int[] {4 << 10, 64 << 20}) {
                int perRound = size < (1 << 20) ? Integer.getInteger("objrdma.ceph.bench.small", 40) : 1;
                byte[] data = random(size, size);
                double[][] ratios = new double[2][rounds]; // PUT, GET: gateway throughput / direct throughput
                long[] total = new long[4]; // put direct, put gateway, get direct, get gateway
                for (int r = -1; r < rounds; r++) { // round -1 warms up
                    long[] nanos = new long[4];
                    for (int i = 0; i < perRound; i++) {
                        String key = "fig-" + size + "-" + i;
                        // which path goes first alternates, so neither always follows the other's work on RGW
                        boolean directFirst = ((r + 1) * perRound + i) % 2 == 0;
                        Runnable[] ops = {
                            () -> rgw.putObject(x -> x.bucket(direct).key(key), RequestBody.fromBytes(data)),
                            () -> gw.putObject(x -> x.bucket(bucket).key(key), RequestBody.fromBytes(data)),
                            () -> assertEquals(size, rgw.getObject(x -> x.bucket(direct).key(key),
                                    ResponseTransformer.toBytes()).asByteArray().length),
                            () -> assertEquals(size, gw.getObject(x -> x.bucket(bucket).key(key),
                                    ResponseTransformer.toBytes()).asByteArray().length)};
                        for (int pair = 0; pair < 2; pair++) {
                            for (int side = 0; side < 2; side++) {
                                int k = 2 * pair + (directFirst ? side : 1 - side);
                                long t0 = System.nanoTime();
                                ops[k].run();
                                nanos[k] += System.nanoTime() - t0;
                            }
                        }
                    }
                    if (r >= 0) {
                        ratios[0][r] = (double) nanos[0] / nanos[1];
                        ratios[1][r] = (double) nanos[2] / nanos[3];
                        for (int k = 0; k < 4; k++) {
                            total[k] += nanos[k];
                        }
                    }
                }
                double bytes = (double) rounds * perRound * size;
                String label = size >= (1 << 20) ? (size >> 20) + " MiB" : (size >> 10) + " KiB";
                for (int op = 0; op < 2; op++) {
                    double[] sorted = ratios[op].clone();
                    java.util.Arrays.sort(sorted);
                    System.out.printf("ceph figures %s %s, %d rounds x %d: direct %.1f MB/s (%.0f ops/s), through gateway"
                            + " %.1f MB/s (%.0f ops/s); ratio per round min %.2f median %.2f max %.2f%n", label,
                            op == 0 ? "PUT" : "GET", rounds, perRound, bytes / (total[2 * op] / 1e9) / 1e6,
                            rounds * perRound / (total[2 * op] / 1e9), bytes / (total[2 * op + 1] / 1e9) / 1e6,
                            rounds * perRound / (total[2 * op + 1] / 1e9), sorted[0], sorted[sorted.length / 2],
                            sorted[sorted.length - 1]);
                }
                for (int i = 0; i < perRound; i++) {
                    String key = "fig-" + size + "-" + i;
                    rgw.deleteObject(x -> x.bucket(direct).key(key));
                    gw.deleteObject(x -> x.bucket(bucket).key(key));
                }
            }
            rgw.deleteBucket(x -> x.bucket(direct));
        }
    }

    /**
     * The bench's client, the same on both paths: RGW 16.2 knows neither the SDK's default flexible-checksum trailers
     * nor (for empty bodies) aws-chunked, so neither is used, towards RGW or towards the gateway.
     */
    private static S3Client benchClient(java.net.URI endpoint, String accessKey, String secretKey) {
        return S3Client.builder().endpointOverride(endpoint)
                .region(software.amazon.awssdk.regions.Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(software.amazon.awssdk.auth.credentials.StaticCredentialsProvider.create(
                        software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(accessKey, secretKey)))
                .requestChecksumCalculation(software.amazon.awssdk.core.checksums.RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(software.amazon.awssdk.core.checksums.ResponseChecksumValidation.WHEN_REQUIRED)
                .serviceConfiguration(software.amazon.awssdk.services.s3.S3Configuration.builder()
                        .chunkedEncodingEnabled(false).build())
                .overrideConfiguration(o -> o.apiCallTimeout(CALL_BOUND)).build();
    }

    // ---------------------------------------------------------------- faults

    /** What a load saw: acknowledged writes (key -> seed), failed calls by kind, wrong bytes (must stay empty). */
    private record LoadResult(Map<String, Long> acknowledged, List<String> failures, List<String> wrongBytes) {
    }

    /**
     * PUT/GET load from {@code threads} clients spread over {@code through}; {@code fault} runs once the load
     * is going; the load runs {@code seconds} more after it. Every call ends within {@link #CALL_BOUND} (the SDK's
     * api call timeout), and the whole load within its own bound: nothing may hang.
     */
    private static LoadResult underLoad(String name, List<String> through, int threads, int seconds, Runnable fault)
            throws Exception {
        Map<String, Long> acknowledged = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> loops = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            loops.add(pool.submit(() -> {
                String node = through.get(thread % through.size());
                String reader = through.get((thread + 1) % through.size());
                try (S3Client put = sdk(node); S3Client get = sdk(reader)) {
                    for (int i = 0; !stop.get(); i++) {
                        String key = name + "/" + thread + "/" + i;
                        long seed = ((long) name.hashCode() << 32) ^ (thread * 1_000_003L + i);
                        byte[] data = random(seed, LOAD_OBJECT);
                        try {
                            put.putObject(x -> x.bucket(bucket).key(key), RequestBody.fromBytes(data));
                            acknowledged.put(key, seed);
                        } catch (RuntimeException e) {
                            failures.add("PUT " + key + " via " + node + ": " + e);
                            continue;
                        }
                        try {
                            byte[] back = get.getObject(x -> x.bucket(bucket).key(key), ResponseTransformer.toBytes())
                                    .asByteArray();
                            if (!java.util.Arrays.equals(data, back)) {
                                wrong.add(key + " via " + reader);
                            }
                        } catch (RuntimeException e) {
                            failures.add("GET " + key + " via " + reader + ": " + e);
                        }
                    }
                }
                return null;
            }));
        }
        Thread.sleep(3000);
        fault.run();
        Thread.sleep(seconds * 1000L);
        stop.set(true);
        pool.shutdown();
        assertTrue(pool.awaitTermination(CALL_BOUND.toSeconds() * 2 + 30, TimeUnit.SECONDS),
                name + ": a load call did not end within its bound (a hang)");
        for (Future<?> f : loops) {
            f.get();
        }
        System.out.printf("%s: %d writes acknowledged, %d calls failed%s%n", name, acknowledged.size(), failures.size(),
                failures.isEmpty() ? "" : " (first: " + failures.peek() + ")");
        return new LoadResult(acknowledged, List.copyOf(failures), List.copyOf(wrong));
    }

    /** Every acknowledged write reads back byte-exact through {@code node}; every listed load object is whole. */
    private static void everyAcknowledgedWriteIsThere(String name, LoadResult load, String node) {
        assertEquals(List.of(), load.wrongBytes(), name + ": a read returned other bytes");
        assertTrue(load.acknowledged().size() > 0, name + ": the load wrote nothing");
        try (S3Client c = sdk(node)) {
            for (Map.Entry<String, Long> e : load.acknowledged().entrySet()) {
                byte[] back = c.getObject(x -> x.bucket(bucket).key(e.getKey()), ResponseTransformer.toBytes()).asByteArray();
                assertArrayEquals(random(e.getValue(), LOAD_OBJECT), back, name + ": " + e.getKey());
            }
            for (var page : c.listObjectsV2Paginator(x -> x.bucket(bucket).prefix(name + "/"))) {
                for (var o : page.contents()) {
                    assertEquals(LOAD_OBJECT, o.size(), name + ": a partial object is listed: " + o.key());
                }
            }
        }
    }

    /** Every live node: staging pool lent 0 and no double return; no live session. */
    private static void audit(String when) throws Exception {
        for (FleetNode n : nodes.values()) {
            if (!n.isAlive()) {
                continue;
            }
            // one client run: the pool's tables (every row has tabs; the totals row comes first), then the
            // sessions table, whose rows begin with a 32-hex session id (it prints nothing when there is none)
            String out = n.shell("rdma:pool --no-format\nrdma:sessions --no-format", "\t");
            String[] totals = out.lines().filter(l -> l.contains("\t")).findFirst()
                    .orElseThrow(() -> new AssertionError(n.id + ": no rdma:pool row: " + out)).split("\t");
            assertEquals("0", totals[0].strip(), when + ": node " + n.id + " still lends staging: " + out);
            assertEquals("0", totals[9].strip(), when + ": node " + n.id + " double returns: " + out);
            assertEquals("0", totals[10].strip(), when + ": node " + n.id + " overdue leases: " + out);
            assertTrue(out.lines().noneMatch(l -> l.strip().matches("[0-9a-f]{32}\\s.*")), when + ": node " + n.id
                    + " has live sessions: " + out);
        }
    }

    @Test
    @Order(6)
    void anOsdKilledDuringLoadLosesNothing() throws Exception {
        Assumptions.assumeTrue(ceph.osds() >= 3, "the reduced cluster (" + ceph.osds() + " OSD) has no replica to lose");
        LoadResult load = underLoad("osd-kill", List.of("a", "b", "c"), 3, 12, () -> ceph.kill("osd.1"));
        ceph.startMissing(); // osd.1 returns; recovery runs
        assertEquals(List.of(), load.failures().stream().filter(f -> f.startsWith("GET")).toList(),
                "pool size 3: reads go on while one OSD is down");
        everyAcknowledgedWriteIsThere("osd-kill", load, "b");
        audit("after the OSD kill");
    }

    @Test
    @Order(7)
    void theAdaptersPreferredRgwKilledDuringLoadFailsOverAndNothingHangs() throws Exception {
        Assumptions.assumeTrue(ceph.endpoints().size() >= 2, "the reduced cluster has one RGW: nothing to fail over to");
        // every node's adapter lists the first RGW (client.rgw.a) first
        LoadResult load = underLoad("rgw-kill", List.of("a", "b", "c"), 3, 12, () -> ceph.kill("client.rgw.a"));
        try {
            everyAcknowledgedWriteIsThere("rgw-kill", load, "c");
        } finally {
            ceph.startMissing();
        }
        audit("after the RGW kill");
    }

    @Test
    @Order(8)
    void aGatewayKilledLeavesTheClientsOfTheOthersUnaffected() throws Exception {
        LoadResult load = underLoad("gateway-kill", List.of("a", "b"), 2, 8, () -> {
            try {
                nodes.get("c").kill();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertEquals(List.of(), load.failures(), "the clients of a and b saw no failure");
        everyAcknowledgedWriteIsThere("gateway-kill", load, "a");
        audit("after the gateway kill");
    }
}
