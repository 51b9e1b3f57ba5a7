package org.objrdma.benchmarks.table;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ./bench.sh}: every benchmark of the project in one table, each row next to a reference measured in the
 * same run, with its aim. Arguments: {@code --quick} (each benchmark once, briefly: proves every row still
 * produces a number; exits 1 if one has none), {@code --out DIR} (default {@code benchmarks/target/bench}),
 * {@code --softverbs LIB} (the software verbs device, {@code objrdma.softverbs.library}), {@code --root DIR} (the
 * repository: its built distribution is what the real-path rows start), {@code --only REGEX} (only the sections
 * whose name matches, e.g. {@code real path}: for working on one section; the table then has only its rows).
 * Writes {@code table.txt}, {@code table.md}, {@code table.csv} and {@code table.png} into the output directory.
 */
public final class BenchTable {

    @FunctionalInterface
    private interface Section {
        List<Row> measure() throws Exception;
    }

    private record Named(String name, List<Row> placeholders, Section section) {
    }

    private BenchTable() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = false;
        Path out = Path.of("benchmarks/target/bench");
        String softverbs = null;
        Path root = Path.of(".");
        java.util.regex.Pattern only = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--out" -> out = Path.of(args[++i]);
                case "--softverbs" -> softverbs = args[++i];
                case "--root" -> root = Path.of(args[++i]);
                case "--only" -> only = java.util.regex.Pattern.compile(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]
                        + " (--quick, --out DIR, --softverbs LIB, --root REPOSITORY, --only SECTION_REGEX)");
            }
        }
        Files.createDirectories(out);
        Path dir = out.toAbsolutePath();
        List<String> jvmArgs = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED", "-Xmx1g",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        if (softverbs != null) {
            jvmArgs.add("-Dobjrdma.softverbs.library=" + softverbs);
        }
        Jmh jmh = new Jmh(quick, jvmArgs);
        boolean q = quick;
        String verbsMissing = softverbs == null || !Files.isReadable(Path.of(softverbs))
                ? "the software verbs device library " + softverbs + " is missing (built by the objrdma-verbs module)"
                : null;
        Path repository = root.toAbsolutePath().normalize();
        List<Named> sections = List.of(
                new Named("real path (distribution, own-JVM clients)", RealPathRows.placeholders(q, "not measured"),
                        () -> RealPathRows.measure(q, repository, dir)),
                new Named("tcp transport", List.of(
                        na("TCP transport WRITE", "64 MiB", "iperf3 1 stream", ">= 0.95x"),
                        na("TCP transport READ", "64 MiB", "iperf3 1 stream", ">= 0.95x"),
                        na("TCP transport WRITE, one at a time", "4 KiB", "raw SocketChannel ping-pong", ">= 0.80x")),
                        () -> TransportRows.measure(jmh, q, dir)),
                new Named("verbs", List.of(
                        na("verbs WRITE post+poll (software device)", "64 B", "MemorySegment.copy", "<= 300 ns"),
                        na("verbs WRITE post+poll (software device)", "1 MiB", "MemorySegment.copy", ">= 0.80x")),
                        () -> {
                            if (verbsMissing != null) {
                                throw new IllegalStateException(verbsMissing);
                            }
                            return ComponentRows.verbs(jmh);
                        }),
                new Named("grant", List.of(na("grant + revoke (TCP, 64 KiB slice)", "64 KiB",
                        "register + close the slice", "<= 2000 ns")), () -> ComponentRows.grant(jmh)),
                new Named("staging", List.of(na("staging borrow + return p99", "4 KiB", "bare Commons Pool keyed p99",
                        "p99 <= 1000 ns")), () -> ComponentRows.staging(jmh)),
                new Named("session", List.of(
                        na("session prepare->ready->final (GET)", "-", "random id into/out of a map", ">= 200 k/s"),
                        na("session prepare->ready->final (PUT)", "-", "random id into/out of a map", ">= 200 k/s")),
                        () -> ComponentRows.session(jmh)),
                new Named("fs store", List.of(
                        na("fs store put (fsync)", "64 MiB", "FileChannel write+force+rename", ">= 0.90x"),
                        na("fs store ranged get", "64 MiB", "FileChannel read", ">= 0.90x")),
                        () -> StoreRows.measure(q, dir)),
                new Named("s3 plain http", s3Placeholders(), () -> S3Rows.plainHttp(q, dir)),
                new Named("s3 rdma paths", rdmaPlaceholders(), () -> S3Rows.rdmaPaths(q, dir)),
                new Named("cuobject facade", facadePlaceholders(), () -> ComponentRows.cuObjFacade(jmh)));

        Instant started = Instant.now();
        List<Row> rows = new ArrayList<>();
        for (Named s : sections) {
            if (only != null && !only.matcher(s.name()).find()) {
                continue;
            }
            long t0 = System.nanoTime();
            System.out.println("bench: " + s.name() + " ...");
            try {
                rows.addAll(s.section().measure());
            } catch (Exception | Error e) {
                System.out.println("bench: " + s.name() + " FAILED: " + e);
                e.printStackTrace(System.out);
                String why = String.valueOf(e.getMessage()).lines().findFirst().orElse(e.toString());
                for (Row p : s.placeholders()) {
                    rows.add(new Row(p.operation(), p.size(), Double.NaN, "", p.reference(), Double.NaN, "",
                            Double.NaN, p.aim(), "n/a: " + why));
                }
            }
            System.out.printf("bench: %s done in %d s%n", s.name(), (System.nanoTime() - t0) / 1_000_000_000L);
        }
        long seconds = java.time.Duration.between(started, Instant.now()).toSeconds();
        String title = String.format("objrdma benchmarks, %s, %s mode, %d s, %s, %d CPUs, JDK %s",
                started.truncatedTo(ChronoUnit.MINUTES), quick ? "quick" : "full", seconds, machine(),
                Runtime.getRuntime().availableProcessors(), Runtime.version());
        String text = title + "\n" + TableOutput.text(rows);
        System.out.println();
        System.out.print(text);
        Files.writeString(dir.resolve("table.txt"), text, StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("table.md"), title + "\n\n" + TableOutput.markdown(rows), StandardCharsets.UTF_8);
        TableOutput.csv(rows, dir.resolve("table.csv"));
        TableOutput.png(rows, dir.resolve("table.png"), title);
        System.out.println("bench: wrote table.txt, table.md, table.csv, table.png in " + dir);
        long missing = rows.stream().filter(r -> !r.measured()).count();
        if (missing > 0) {
            System.out.println("bench: " + missing + " row(s) produced no number");
        }
        if (quick) {
            // the quick run's check, one per row: it produced a number
            System.out.println("bench: " + (rows.size() - missing) + " passed, " + missing + " failed");
            System.exit(missing > 0 ? 1 : 0);
        }
    }

    private static Row na(String operation, String size, String reference, String aim) {
        return Row.unavailable(operation, size, reference, aim, "not measured");
    }

    private static List<Row> s3Placeholders() {
        List<Row> rows = new ArrayList<>();
        for (String w : List.of("PUT 4 KiB", "GET 4 KiB", "PUT 64 MiB", "GET 64 MiB")) {
            String[] p = w.split(" ", 2);
            rows.add(na(S3Rows.COMPONENT + "S3 " + p[0] + " plain HTTP", p[1], "gaul/s3proxy 4.1.0 (fs backend)", ">= 1.00x"));
        }
        return rows;
    }

    private static List<Row> rdmaPlaceholders() {
        List<Row> rows = new ArrayList<>();
        for (String protocol : List.of("hipobj-rc-v2", "cuObject")) {
            for (String size : List.of("4 KiB", "64 MiB")) {
                for (String op : List.of("GET", "PUT")) {
                    rows.add(na(S3Rows.COMPONENT + "S3 " + op + " over RDMA, " + protocol, size, "plain HTTP, same gateway",
                            size.equals("4 KiB") ? ">= 0.50x" : ">= 1.00x"));
                }
            }
        }
        return rows;
    }

    private static List<Row> facadePlaceholders() {
        List<Row> rows = new ArrayList<>();
        for (String size : List.of("4 KiB", "64 MiB")) {
            rows.add(na(S3Rows.COMPONENT + "cuObject facade GET (sync)", size, "raw WRITE, same transports", ">= 0.90x"));
            rows.add(na(S3Rows.COMPONENT + "cuObject facade PUT (sync)", size, "raw READ, same transports", ">= 0.90x"));
        }
        return rows;
    }

    private static String machine() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException e) {
            // not Linux: no model name
        }
        return System.getProperty("os.arch");
    }
}
