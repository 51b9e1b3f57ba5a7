package org.objrdma.benchmarks;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * GET and PUT of 4 KiB (ops/s, {@code BENCH_THREADS} clients at once) and 64 MiB (MB/s, one client) against
 * s3proxy 4.1.0 in this JVM, the objrdma gateway ({@code OBJRDMA_S3_ENDPOINT}, {@code OBJRDMA_S3_ACCESS_KEY},
 * {@code OBJRDMA_S3_SECRET_KEY}; without them a second s3proxy stands in, so the harness can be proven) and the
 * raw store (the fs store's Java API in this JVM, {@code BENCH_RAW_FSYNC}, default on as in the distribution).
 * {@code BENCH_WARMUPS} warm-up rounds, then {@code BENCH_REPS} rounds, the
 * targets interleaved inside each round (order rotating) so drift hits them alike; prints median and min-max per cell and the
 * ratios against the aims.
 */
public final class S3Bench {

    private static final int SMALL = 4096;
    private static final int LARGE = 64 << 20;

    private S3Bench() {
    }

    private record Workload(String name, String unit) {
    }

    private static final Workload PUT_4K = new Workload("PUT 4 KiB", "ops/s");
    private static final Workload GET_4K = new Workload("GET 4 KiB", "ops/s");
    private static final Workload PUT_64M = new Workload("PUT 64 MiB", "MB/s");
    private static final Workload GET_64M = new Workload("GET 64 MiB", "MB/s");
    private static final List<Workload> WORKLOADS = List.of(PUT_4K, GET_4K, PUT_64M, GET_64M);

    /** Run sizes: rounds measured and warm-up rounds, 4 KiB clients and operations per round, 64 MiB objects per round. */
    public record Settings(int reps, int warmUps, int threads, int smallOps, int largeObjects, boolean rawFsync) {
        static Settings fromEnvironment() {
            return new Settings(intEnv("BENCH_REPS", 5), intEnv("BENCH_WARMUPS", 3), intEnv("BENCH_THREADS", 8),
                    intEnv("BENCH_SMALL_OPS", 2000), intEnv("BENCH_LARGE_OBJECTS", 3),
                    !"false".equals(System.getenv("BENCH_RAW_FSYNC")));
        }
    }

    /** Per workload ("PUT 4 KiB", ...): the gateway's median, s3proxy's median, and the median per-round ratio. */
    public record Figures(double gateway, double s3proxy, double ratio, String unit) {
    }

    public static void main(String[] args) throws Exception {
        String gatewayEndpoint = System.getenv("OBJRDMA_S3_ENDPOINT");
        if (gatewayEndpoint != null && !gatewayEndpoint.isBlank()) {
            run(Settings.fromEnvironment(), URI.create(gatewayEndpoint), requireEnv("OBJRDMA_S3_ACCESS_KEY"),
                    requireEnv("OBJRDMA_S3_SECRET_KEY"), true);
        } else {
            System.out.println("bench: OBJRDMA_S3_ENDPOINT not set: a second s3proxy stands in for the gateway "
                    + "(proves the harness; the ratios should be ~1.0)");
            run(Settings.fromEnvironment(), null, null, null, true);
        }
    }

    /**
     * Measures s3proxy, the gateway at {@code gatewayEndpoint} (null: a second s3proxy stands in) and the raw store;
     * prints the rounds and the table when {@code print}; returns the gateway-against-s3proxy figures.
     */
    public static Map<String, Figures> run(Settings settings, URI gatewayEndpoint, String accessKey, String secretKey,
            boolean print) throws Exception {
        int reps = settings.reps();
        int warmUps = settings.warmUps();
        int threads = settings.threads();
        int smallOps = settings.smallOps();
        int largeObjects = settings.largeObjects();
        Path dir = Files.createTempDirectory("objrdma-bench-");
        byte[] small = new byte[SMALL];
        byte[] large = new byte[LARGE];
        new SplittableRandom(1).nextBytes(small);
        new SplittableRandom(2).nextBytes(large);

        List<AutoCloseable> closing = new ArrayList<>();
        S3ProxyPeer proxy = new S3ProxyPeer(Files.createDirectories(dir.resolve("s3proxy")));
        closing.add(proxy);
        BenchTarget reference = new S3Endpoint("s3proxy", proxy.endpoint(), S3ProxyPeer.ACCESS_KEY,
                S3ProxyPeer.SECRET_KEY);
        BenchTarget gateway;
        if (gatewayEndpoint != null) {
            gateway = new S3Endpoint("gateway", gatewayEndpoint, accessKey, secretKey);
        } else {
            S3ProxyPeer standIn = new S3ProxyPeer(Files.createDirectories(dir.resolve("stand-in")));
            closing.add(standIn);
            gateway = new S3Endpoint("gateway (s3proxy stand-in)", standIn.endpoint(), S3ProxyPeer.ACCESS_KEY,
                    S3ProxyPeer.SECRET_KEY);
        }
        BenchTarget raw = new RawStore(Files.createDirectories(dir.resolve("raw-store")), settings.rawFsync());
        List<BenchTarget> targets = List.of(reference, gateway, raw);
        closing.addAll(targets);
        Map<BenchTarget, Map<Workload, List<Double>>> results = new LinkedHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 1 - warmUps; round <= reps; round++) {
                boolean warmUp = round <= 0;
                // rotate the order each round, so every target takes every place equally often (runs first on
                // a colder JVM, or right after the raw store's fsyncs left the disk busy)
                List<BenchTarget> order = new ArrayList<>(targets);
                java.util.Collections.rotate(order, Math.floorMod(round, targets.size()));
                for (BenchTarget t : order) {
                    Map<Workload, Double> r = new LinkedHashMap<>();
                    r.put(PUT_4K, smallOps(pool, threads, smallOps, i -> t.put("small/" + i, small)));
                    r.put(GET_4K, smallOps(pool, threads, smallOps, i -> t.get("small/" + i, new byte[SMALL])));
                    r.put(PUT_64M, throughput(largeObjects, i -> {
                        t.put("large/" + i, large);
                        return LARGE;
                    }));
                    byte[] buffer = new byte[1 << 20];
                    r.put(GET_64M, throughput(largeObjects, i -> t.get("large/" + i, buffer)));
                    StringBuilder line = new StringBuilder();
                    r.forEach((w, v) -> line.append(String.format("  %s %.0f %s", w.name(), v, w.unit())));
                    if (print) {
                        System.out.printf("bench: %-8s %-28s%s%n", warmUp ? "warm-up" : "round " + round, t.name(), line);
                    }
                    if (!warmUp) {
                        r.forEach((w, v) -> results.computeIfAbsent(t, k -> new LinkedHashMap<>())
                                .computeIfAbsent(w, k -> new ArrayList<>()).add(v));
                    }
                }
            }
        } finally {
            pool.shutdownNow();
            for (AutoCloseable c : closing) {
                c.close();
            }
            deleteTree(dir);
        }
        if (print) {
            print(results, reference, gateway, raw, reps, warmUps, threads, smallOps, largeObjects);
        }
        Map<String, Figures> figures = new LinkedHashMap<>();
        for (Workload w : WORKLOADS) {
            figures.put(w.name(), new Figures(median(results.get(gateway).get(w)), median(results.get(reference).get(w)),
                    medianRatio(results.get(gateway).get(w), results.get(reference).get(w)), w.unit()));
        }
        return figures;
    }

    @FunctionalInterface
    private interface Op {
        long run(int i) throws Exception;
    }

    @FunctionalInterface
    private interface VoidOp {
        void run(int i) throws Exception;
    }

    /** {@code ops} operations spread over {@code threads} concurrent clients; returns ops/s. */
    private static double smallOps(ExecutorService pool, int threads, int ops, VoidOp op) throws Exception {
        List<Future<?>> running = new ArrayList<>();
        long start = System.nanoTime();
        for (int t = 0; t < threads; t++) {
            int first = t;
            running.add(pool.submit(() -> {
                for (int i = first; i < ops; i += threads) {
                    op.run(i);
                }
                return null;
            }));
        }
        for (Future<?> f : running) {
            f.get();
        }
        return ops / ((System.nanoTime() - start) / 1e9);
    }

    /** {@code count} sequential transfers by one client; returns MB/s (10^6 bytes). */
    private static double throughput(int count, Op op) throws Exception {
        long bytes = 0;
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            bytes += op.run(i);
        }
        return bytes / 1e6 / ((System.nanoTime() - start) / 1e9);
    }

    private static void print(Map<BenchTarget, Map<Workload, List<Double>>> results, BenchTarget reference,
            BenchTarget gateway, BenchTarget raw, int reps, int warmUps, int threads, int smallOps, int largeObjects) {
        System.out.printf("%nS3 benchmark: %d rounds after %d warm-up rounds; 4 KiB: %d ops by %d clients; 64 MiB: %d"
                + " objects by 1 client; median [min-max]; ratios: median of the per-round ratios%n", reps, warmUps, smallOps, threads, largeObjects);
        String row = "%-10s | %-26s | %-28s | %-26s | %-9s | %-11s | %s%n";
        System.out.printf(row, "workload", reference.name(), gateway.name(), raw.name(), "gw/s3proxy", "gw/raw", "aim");
        for (Workload w : WORKLOADS) {
            double vsProxy = medianRatio(results.get(gateway).get(w), results.get(reference).get(w));
            double vsRaw = medianRatio(results.get(gateway).get(w), results.get(raw).get(w));
            String aim;
            if (w.unit().equals("ops/s")) {
                aim = "gw >= 1.0x s3proxy: " + (vsProxy >= 1.0 ? "met" : "NOT met");
            } else {
                aim = "gw >= 1.0x s3proxy: " + (vsProxy >= 1.0 ? "met" : "NOT met") + "; gw >= 0.85x raw: "
                        + (vsRaw >= 0.85 ? "met" : "NOT met");
            }
            System.out.printf(row, w.name(), cell(results.get(reference).get(w), w), cell(results.get(gateway).get(w), w),
                    cell(results.get(raw).get(w), w), String.format("%.2fx", vsProxy), String.format("%.2fx", vsRaw), aim);
        }
    }

    private static String cell(List<Double> v, Workload w) {
        List<Double> s = v.stream().sorted().toList();
        return String.format("%.0f [%.0f-%.0f] %s", median(v), s.get(0), s.get(s.size() - 1), w.unit());
    }

    /**
     * The median over rounds of the ratio measured within each round: the targets of one round ran back to back
     * on an equally warm JVM, so this is steadier than a ratio of medians while the JIT still climbs.
     */
    private static double medianRatio(List<Double> a, List<Double> b) {
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < a.size(); i++) {
            ratios.add(a.get(i) / b.get(i));
        }
        return median(ratios);
    }

    private static double median(List<Double> v) {
        List<Double> s = v.stream().sorted().toList();
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2;
    }

    private static int intEnv(String name, int fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : Integer.parseInt(v.trim());
    }

    private static String requireEnv(String name) {
        String v = System.getenv(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(name + " must be set together with OBJRDMA_S3_ENDPOINT");
        }
        return v;
    }

    private static void deleteTree(Path p) throws java.io.IOException {
        try (var walk = Files.walk(p)) {
            for (Path x : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(x);
            }
        }
    }
}
