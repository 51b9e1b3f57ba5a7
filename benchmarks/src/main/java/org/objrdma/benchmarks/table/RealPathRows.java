package org.objrdma.benchmarks.table;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The rows a user meets: the built distribution started by {@code ./run.sh server} ({@link DistributionServer}, or a
 * running one named by {@code OBJRDMA_S3_ENDPOINT}), driven by its own client {@code bin/objrdma bench} in a JVM of
 * its own ({@link CliBench}) over real loopback sockets: plain HTTP, cuObject and hipobj-rc-v2 (both on the TCP
 * transport) through the same gateway, PUT and GET, at each size and client count of {@link #workloads}. The same
 * client over plain HTTP against gaul/s3proxy 4.1.0 in a JVM of its own ({@code S3ProxyServer}) is the plain rows'
 * reference; plain HTTP through the same gateway is the RDMA rows'; a loopback iperf3 stream is the wire's. Each
 * phase's server CPU (Karaf's JVM, s3proxy's JVM for its runs) is read around the timed ops.
 */
final class RealPathRows {
    static final String BUCKET = "bench-real";
    private static final String PROXY = "org.objrdma.benchmarks.S3ProxyServer";
    private static final String S3PROXY = "s3proxy";
    /** The paths of one workload, in the order of the first workload (rotated per workload, so drift hits all). */
    private static final List<String> PATHS = List.of("http", "cuobj", "rc", S3PROXY);

    /** One size and client count; {@code count} timed ops per client and operation. */
    record Workload(long size, String label, int clients, int count) {
        String clientsText() {
            return clients == 1 ? "1 client" : clients + " clients";
        }

        boolean small() {
            return size < (1 << 20);
        }
    }

    private RealPathRows() {
    }

    /** Full: 4 KiB, 1 MiB, 4 MiB, 64 MiB with 1 and 8 clients; quick: 4 KiB and 4 MiB with 1 client. */
    static List<Workload> workloads(boolean quick) {
        if (quick) {
            return List.of(new Workload(4096, "4 KiB", 1, 100), new Workload(4L << 20, "4 MiB", 1, 10));
        }
        List<Workload> w = new ArrayList<>();
        for (int clients : List.of(1, 8)) {
            w.add(new Workload(4096, "4 KiB", clients, clients == 1 ? 500 : 150));
            w.add(new Workload(1L << 20, "1 MiB", clients, clients == 1 ? 60 : 12));
            w.add(new Workload(4L << 20, "4 MiB", clients, clients == 1 ? 24 : 4));
            w.add(new Workload(64L << 20, "64 MiB", clients, clients == 1 ? 4 : 1));
        }
        return w;
    }

    /** The rows of {@link #measure}, without numbers: what the table shows when the section cannot run. */
    static List<Row> placeholders(boolean quick, String why) {
        List<Row> rows = new ArrayList<>();
        for (Workload w : workloads(quick)) {
            rows.addAll(unavailable(w, why));
        }
        rows.add(Row.unavailable(wireOperation(), "-", "iperf3 1 stream, loopback", "none", why));
        return rows;
    }

    static List<Row> measure(boolean quick, Path repository, Path out) throws Exception {
        Path dir = Files.createDirectories(out.resolve("real-path"));
        String attached = System.getenv("OBJRDMA_S3_ENDPOINT");
        boolean fsync = "true".equals(System.getenv("BENCH_FSYNC"));
        List<Row> rows = new ArrayList<>();
        long t0 = System.nanoTime();
        try (DistributionServer gateway = attached == null || attached.isBlank()
                ? DistributionServer.start(repository, dir, fsync)
                : DistributionServer.attach(DistributionServer.prepare(repository, dir), URI.create(attached),
                        requireEnv("OBJRDMA_S3_ACCESS_KEY"), requireEnv("OBJRDMA_S3_SECRET_KEY"),
                        pidFromEnvironment());
                Proxy proxy = Proxy.start(dir)) {
            try (S3Client s3 = gateway.adminClient()) {
                createBucket(s3);
            }
            try (S3Client s3 = proxy.client()) {
                createBucket(s3);
            }
            System.out.printf("bench: real path: gateway (pid %s) and s3proxy up after %d s%n",
                    gateway.cpu() == null ? "unknown" : gateway.cpu().pid(), (System.nanoTime() - t0) / 1_000_000_000L);
            String where = gateway.started() ? "distribution via run.sh, fs store fsync " + fsync
                    : "running distribution at " + attached;
            double wire = TransportRows.iperf3(quick ? 1 : 3, dir) * 1000; // MB/s
            Map<Workload, Map<String, Map<String, CliBench.Phase>>> measured = new LinkedHashMap<>();
            List<Workload> workloads = workloads(quick);
            for (int i = 0; i < workloads.size(); i++) {
                Workload w = workloads.get(i);
                List<String> order = new ArrayList<>(PATHS);
                Collections.rotate(order, i);
                long w0 = System.nanoTime();
                Map<String, Map<String, CliBench.Phase>> byPath = new LinkedHashMap<>();
                Map<String, String> failed = new LinkedHashMap<>();
                for (String path : order) {
                    try {
                        byPath.put(path, run(gateway, proxy, path, w, dir));
                    } catch (IOException e) {
                        // one path failing (e.g. a refused transfer) costs its own rows, not the workload's others
                        System.out.println("bench: real path " + w.label() + ", " + w.clientsText() + ", " + path
                                + " FAILED: " + e);
                        failed.put(path, e.toString().lines().findFirst().orElse(""));
                    }
                }
                measured.put(w, byPath);
                rows.addAll(rows(w, byPath, failed, where));
                System.out.printf("bench: real path %s, %s: %d s%n", w.label(), w.clientsText(),
                        (System.nanoTime() - w0) / 1_000_000_000L);
            }
            rows.add(wireRow(workloads, measured, wire));
        }
        return rows;
    }

    private static Map<String, CliBench.Phase> run(DistributionServer gateway, Proxy proxy, String path, Workload w,
            Path dir) throws IOException, InterruptedException {
        String key = "w" + w.size() + "-c" + w.clients() + "-" + path;
        Path log = dir.resolve("client.log");
        if (path.equals(S3PROXY)) {
            return CliBench.run(gateway.home(), proxy.endpoint, proxy.accessKey, proxy.secretKey, "http", BUCKET, key,
                    w.size(), w.count(), w.clients(), proxy.cpu, log);
        }
        return CliBench.run(gateway.home(), gateway.endpoint(), gateway.accessKey(), gateway.secretKey(), path,
                BUCKET, key, w.size(), w.count(), w.clients(), gateway.cpu(), log);
    }

    private static List<Row> rows(Workload w, Map<String, Map<String, CliBench.Phase>> byPath,
            Map<String, String> failed, String where) {
        List<Row> rows = new ArrayList<>();
        for (String op : List.of("PUT", "GET")) {
            List<Row> group = new ArrayList<>();
            group.add(rate(plainOperation(op, w), w, op, byPath, failed, "http", "gaul/s3proxy 4.1.0, own JVM, same client",
                    S3PROXY, 1.0, where));
            for (String protocol : List.of("cuobj", "rc")) {
                group.add(rate(rdmaOperation(op, protocol, w), w, op, byPath, failed, protocol,
                        "plain HTTP, same gateway and client", "http", w.small() ? 0.9 : 1.0, where));
            }
            // the path that cost the server least CPU per GiB among the gateway's three
            Row least = group.stream().filter(r -> !Double.isNaN(r.cpuPerGiB()))
                    .min((a, b) -> Double.compare(a.cpuPerGiB(), b.cpuPerGiB())).orElse(null);
            for (Row r : group) {
                rows.add(r == least ? r.asLeastCpu() : r);
            }
        }
        return rows;
    }

    /** The row of {@code path} against {@code referencePath}, or why it has no number (either run failed). */
    private static Row rate(String operation, Workload w, String op, Map<String, Map<String, CliBench.Phase>> byPath,
            Map<String, String> failed, String path, String reference, String referencePath, double aim,
            String where) {
        for (String p : List.of(path, referencePath)) {
            if (failed.containsKey(p)) {
                return Row.unavailable(operation, w.label(), reference, String.format(java.util.Locale.ROOT,
                        ">= %.2fx", aim), (p.equals(S3PROXY) ? "s3proxy's run" : "the " + p + " run") + " failed: "
                        + failed.get(p));
            }
        }
        return rate(operation, w, byPath.get(path).get(op), reference, byPath.get(referencePath).get(op), aim, where,
                path);
    }

    private static Row rate(String operation, Workload w, CliBench.Phase p, String reference, CliBench.Phase ref,
            double aim, String where, String expectedPath) {
        String note = where;
        if (!p.path().equals(expectedPath)) {
            // e.g. a gateway whose rdma.min.bytes is above this size answers over HTTP: say so, do not hide it
            note += "; the client reports path " + p.path();
        }
        Row row = w.small()
                ? Row.rate(operation, w.label(), p.opsPerSecond(), "ops/s", reference, ref.opsPerSecond(), aim, note)
                : Row.rate(operation, w.label(), p.bytesPerSecond() / 1e6, "MB/s", reference, ref.bytesPerSecond() / 1e6,
                        aim, note);
        return row.withCpu(p.cpuPerGiB(), ref.cpuPerGiB());
    }

    /** The gateway's plain-HTTP GET of the largest size by one client against the loopback wire (no aim: a scale). */
    private static Row wireRow(List<Workload> workloads, Map<Workload, Map<String, Map<String, CliBench.Phase>>> measured,
            double wireMBps) {
        Workload largest = workloads.stream().filter(w -> w.clients() == 1)
                .max((a, b) -> Long.compare(a.size(), b.size())).orElseThrow();
        String op = wireOperation();
        Map<String, Map<String, CliBench.Phase>> m = measured.get(largest);
        if (m == null || !m.containsKey("http")) {
            return Row.unavailable(op, largest.label(), "iperf3 1 stream, loopback", "none", "its workload failed");
        }
        double mbps = m.get("http").get("GET").bytesPerSecond() / 1e6;
        return new Row(op, largest.label(), mbps, "MB/s", "iperf3 1 stream, loopback", wireMBps, "MB/s",
                mbps / wireMBps, new Row.Aim(Double.NaN, "none (scale)"), "");
    }

    private static String wireOperation() {
        return "S3 GET plain HTTP, distribution, 1 client, share of the wire";
    }

    private static String plainOperation(String op, Workload w) {
        return "S3 " + op + " plain HTTP, distribution, " + w.clientsText();
    }

    private static String rdmaOperation(String op, String protocol, Workload w) {
        return "S3 " + op + " over " + (protocol.equals("rc") ? "hipobj-rc-v2" : "cuObject") + " (TCP), distribution, "
                + w.clientsText();
    }

    private static List<Row> unavailable(Workload w, String why) {
        List<Row> rows = new ArrayList<>();
        String aim = w.small() ? ">= 0.90x" : ">= 1.00x";
        for (String op : List.of("PUT", "GET")) {
            rows.add(Row.unavailable(plainOperation(op, w), w.label(), "gaul/s3proxy 4.1.0, own JVM, same client",
                    ">= 1.00x", why));
            for (String protocol : List.of("cuobj", "rc")) {
                rows.add(Row.unavailable(rdmaOperation(op, protocol, w), w.label(), "plain HTTP, same gateway and client",
                        aim, why));
            }
        }
        return rows;
    }

    private static void createBucket(S3Client s3) {
        try {
            s3.createBucket(b -> b.bucket(BUCKET));
        } catch (software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException mine) {
            // an attached distribution from an earlier run: the bucket is ours already
        }
    }

    private static Long pidFromEnvironment() {
        String pid = System.getenv("OBJRDMA_SERVER_PID");
        if (pid == null || pid.isBlank()) {
            return null;
        }
        try {
            return Long.valueOf(pid.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("OBJRDMA_SERVER_PID must be the pid of the distribution's Karaf JVM,"
                    + " was '" + pid + "'");
        }
    }

    private static String requireEnv(String name) {
        String v = System.getenv(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(name + " must be set together with OBJRDMA_S3_ENDPOINT (as ./run.sh"
                    + " prints them)");
        }
        return v;
    }

    /** gaul/s3proxy 4.1.0 in a JVM of its own; stops when its standard input is closed. */
    private record Proxy(Process process, URI endpoint, String accessKey, String secretKey, ProcessCpu cpu)
            implements AutoCloseable {
        static Proxy start(Path dir) throws IOException, InterruptedException {
            Process p = new ProcessBuilder(ChildProcess.javaCommand(PROXY, dir.resolve("s3proxy-data").toString()))
                    .redirectError(ProcessBuilder.Redirect.appendTo(dir.resolve("s3proxy.log").toFile())).start();
            BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = r.readLine();
            if (line == null || !line.startsWith("endpoint ")) {
                p.destroyForcibly();
                throw new IOException("s3proxy did not start: " + line + ", see " + dir.resolve("s3proxy.log"));
            }
            String[] f = line.split(" ");
            return new Proxy(p, URI.create(f[1]), f[2], f[3], new ProcessCpu(p.pid()));
        }

        S3Client client() {
            return DistributionServer.client(endpoint, accessKey, secretKey);
        }

        @Override
        public void close() throws InterruptedException, IOException {
            process.getOutputStream().close();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }
}
