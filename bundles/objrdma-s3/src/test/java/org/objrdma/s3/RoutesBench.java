package org.objrdma.s3;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.objrdma.api.session.Op;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.CuObjAgent;
import org.objrdma.client.CuObjRequestHandler;
import org.objrdma.s3.rdma.RdmaHeaders;
import org.objrdma.s3.rdma.RdmaServices;
import org.objrdma.s3.rdma.RdmaSettings;
import org.objrdma.store.fs.EmbeddedStore;
import org.objrdma.store.fs.EmbeddedStores;
import org.objrdma.wire.Errno;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The gateway for the top-level benchmark table ({@code benchmarks/}), run as a child JVM on this module's test
 * class path (it drives the protocol layer the way {@link RdmaFixture} and {@link LoopbackHttpFront} do; not a
 * test, surefire never runs it). Two modes:
 *
 * <ul>
 *   <li>{@code serve DIR}: the gateway on the fs store (fsync on, as the distribution) without RDMA, behind the
 *       JDK HTTP server on 127.0.0.1; prints {@code endpoint URI ACCESS_KEY SECRET_KEY} and serves until its
 *       standard input ends. The S3 rows (gateway against s3proxy) point the AWS SDK at it.</li>
 *   <li>{@code rdma ROUNDS SMALL_OPS LARGE_OPS}: one gateway with both RDMA protocols on real TCP transports
 *       ({@link RdmaFixture}); per round and size, GET and PUT by one client over plain HTTP (AWS SDK, real
 *       sockets, {@link LoopbackHttpFront} on the same gateway), over hipobj-rc-v2 ({@code RcClient}) and over
 *       cuObject ({@code CuObjAgent}). The RDMA control requests (PREPARE/READY, the token-carrying GET/PUT) go
 *       through the protocol layer in this JVM, as the module tests drive them: their HTTP socket hop is not in
 *       the figure, the data moves over the TCP transport. Prints {@code measure NAME MEDIAN} lines: ops/s
 *       at 4 KiB, MB/s (10^6 bytes) at 64 MiB.</li>
 * </ul>
 */
public final class RoutesBench {
    private static final int SMALL = 4096;
    private static final int LARGE = 64 << 20;
    private static final int CHUNK = 1 << 20;
    /** Profiling one path at a time: {@code -Droutes.only=rc\\.get\\.4k} runs only the paths it matches. */
    private static final String ONLY = System.getProperty("routes.only", ".*");

    private RoutesBench() {
    }

    public static void main(String[] args) throws Exception {
        switch (args.length > 0 ? args[0] : "") {
            case "serve" -> serve(Path.of(args[1]));
            case "rdma" -> rdma(Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]));
            default -> throw new IllegalArgumentException("usage: serve DIR | rdma ROUNDS SMALL_OPS LARGE_OPS");
        }
    }

    private static void serve(Path dir) throws Exception {
        Files.createDirectories(dir);
        try (EmbeddedStore store = EmbeddedStores.filesystem(dir, Map.of(SdkSigner.AK, SdkSigner.SECRET),
                StoreLimits.MAX_OBJECT_SIZE, true);
                LoopbackHttpFront front = new LoopbackHttpFront(
                        new S3Gateway(store, S3Settings.DEFAULTS, Clock.systemUTC(), RdmaServices.NONE))) {
            System.out.println("endpoint " + front.endpoint() + " " + SdkSigner.AK + " " + SdkSigner.SECRET);
            System.out.flush();
            while (System.in.read() >= 0) {
                // serve until the parent closes our standard input
            }
        }
    }

    @FunctionalInterface
    private interface Transfer {
        void run(int i) throws Exception;
    }

    private static void rdma(int rounds, int smallOps, int largeOps) throws Exception {
        Map<String, List<Double>> results = new LinkedHashMap<>();
        try (RdmaFixture f = new RdmaFixture(new RdmaSettings(1, CHUNK), true);
                LoopbackHttpFront front = new LoopbackHttpFront(f.gateway);
                S3Client sdk = S3Client.builder().endpointOverride(front.endpoint()).region(Region.US_EAST_1)
                        .credentialsProvider(StaticCredentialsProvider.create(
                                AwsBasicCredentials.create(SdkSigner.AK, SdkSigner.SECRET)))
                        .forcePathStyle(true).build();
                ClientMemory small = f.memory(SMALL);
                ClientMemory large = f.memory(LARGE)) {
            sdk.createBucket(b -> b.bucket("bkt"));
            byte[] smallBytes = new byte[SMALL];
            byte[] largeBytes = new byte[LARGE];
            new SplittableRandom(3).nextBytes(smallBytes);
            new SplittableRandom(4).nextBytes(largeBytes);
            MemorySegment.copy(MemorySegment.ofArray(smallBytes), 0, small.segment(), 0, SMALL);
            MemorySegment.copy(MemorySegment.ofArray(largeBytes), 0, large.segment(), 0, LARGE);
            byte[] sink = new byte[CHUNK];
            CuObjAgent agent = cuObjAgent(f, small);
            // the objects the GET paths read exist even when -Droutes.only leaves every PUT path out
            sdk.putObject(b -> b.bucket("bkt").key("obj-4k"), RequestBody.fromBytes(smallBytes));
            sdk.putObject(b -> b.bucket("bkt").key("obj-64m"), RequestBody.fromBytes(largeBytes));
            for (int round = 0; round <= rounds; round++) { // round 0 warms up
                for (int[] size : new int[][] {{SMALL, smallOps}, {LARGE, largeOps}}) {
                    int n = size[0];
                    int ops = size[1];
                    byte[] body = n == SMALL ? smallBytes : largeBytes;
                    ClientMemory mem = n == SMALL ? small : large;
                    String tag = n == SMALL ? "4k" : "64m";
                    String key = "obj-" + tag;
                    Map<String, Transfer> paths = new LinkedHashMap<>();
                    paths.put("http.put." + tag, i -> sdk.putObject(b -> b.bucket("bkt").key(key), RequestBody.fromBytes(body)));
                    paths.put("http.get." + tag, i -> {
                        try (var in = sdk.getObject(b -> b.bucket("bkt").key(key))) {
                            long got = 0;
                            for (int k; (k = in.read(sink)) >= 0; ) {
                                got += k;
                            }
                            check(got == n, "plain GET returned " + got + " bytes");
                        }
                    });
                    paths.put("rc.put." + tag, i -> rcRun(f, Op.PUT, mem, key, n));
                    paths.put("rc.get." + tag, i -> rcRun(f, Op.GET, mem, key, n));
                    paths.put("cuobj.put." + tag, i -> check(agent.put(mem, 0, n, cuObjHandler(f, "PUT", key)) == n,
                            "cuObject PUT failed"));
                    paths.put("cuobj.get." + tag, i -> check(agent.get(mem, 0, n, cuObjHandler(f, "GET", key)) == n,
                            "cuObject GET failed"));
                    for (var e : paths.entrySet()) {
                        if (!e.getKey().matches(ONLY)) {
                            continue;
                        }
                        long start = System.nanoTime();
                        for (int i = 0; i < ops; i++) {
                            e.getValue().run(i);
                        }
                        double seconds = (System.nanoTime() - start) / 1e9;
                        double value = n == SMALL ? ops / seconds : (double) ops * n / 1e6 / seconds;
                        if (round > 0) {
                            results.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(value);
                        }
                        System.err.printf("round %d %s %.1f%n", round, e.getKey(), value);
                    }
                }
            }
            if (agent != f.agent) {
                agent.close();
            }
        }
        results.forEach((name, values) -> System.out.printf(java.util.Locale.ROOT, "measure %s %.3f%n", name,
                values.stream().sorted().toList().get(values.size() / 2)));
    }

    /**
     * The cuObject client agent: keyed for the principal ({@code CuObjAgent.openForPrincipal} with the secret key)
     * when the gateway's cuObject routes take per-principal agent keys, else — a gateway whose facade still has
     * one shared {@code agent.key} — the fixture's agent with that key. One probe PUT decides.
     */
    private static CuObjAgent cuObjAgent(RdmaFixture f, ClientMemory probe) throws Exception {
        CuObjAgent perPrincipal = CuObjAgent.openForPrincipal(f.clientTransport, SdkSigner.SECRET);
        if (perPrincipal.put(probe, 0, SMALL, cuObjHandler(f, "PUT", "probe")) == SMALL) {
            System.err.println("cuObject agent: per-principal key");
            return perPrincipal;
        }
        perPrincipal.close();
        System.err.println("cuObject agent: the facade's shared agent.key (the routes take no per-principal key yet)");
        return f.agent;
    }

    private static void rcRun(RdmaFixture f, Op op, ClientMemory mem, String key, long size) throws Exception {
        RdmaFixture.Prepared p = f.prepare(op, mem, "/bkt/" + key, 0, size);
        check(p.response().status == 200, "RC PREPARE answered " + p.response().status + " " + p.response().text());
        TestResponse ready = f.run(p);
        check(ready.status == 200, "RC READY answered " + ready.status + " " + ready.text());
    }

    /** One signed request per agent chunk carrying its descriptor, as cuobj.md §10 has the client send it. */
    private static CuObjRequestHandler cuObjHandler(RdmaFixture f, String method, String key) {
        return req -> {
            try {
                TestResponse r = f.call(method, "/bkt/" + key, "", method.equals("PUT") ? new byte[0] : null,
                        RdmaHeaders.TOKEN, req.headerValue());
                if (r.status != 200) {
                    return -Errno.EIO;
                }
                return method.equals("PUT") ? req.size() : Long.parseLong(r.header(RdmaHeaders.BYTES_TRANSFERRED));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
    }

    private static void check(boolean ok, String failure) {
        if (!ok) {
            throw new IllegalStateException(failure);
        }
    }
}
