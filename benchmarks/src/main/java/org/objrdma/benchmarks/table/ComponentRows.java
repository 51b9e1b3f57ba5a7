package org.objrdma.benchmarks.table;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The in-process parts, each with the reference its module's benchmark measures beside it in the same fork:
 * verbs on the software device against {@code MemorySegment.copy}, grant + revoke against registering the slice
 * as a region, staging borrow/return p99 against a bare Commons Pool, session cycles against the id-and-map
 * floor, the cuObject facade against raw WRITE/READ on the same transports.
 */
final class ComponentRows {
    private static final String VERBS = "org.objrdma.verbs.bench.VerbsWriteBenchmark";
    private static final String GRANT = "org.objrdma.transport.tcp.internal.bench.TcpGrantBenchmark";
    private static final String STAGING = "org.objrdma.staging.internal.StagingBorrowBenchmark";
    private static final String SESSION = "org.objrdma.session.internal.bench.SessionCycleBenchmark";
    private static final String CUOBJ = "org.objrdma.cuobj.bench.CuObjSyncBenchmark";

    private ComponentRows() {
    }

    /** Verbs WRITE post + poll; aims of issue 4: 64 B at most 300 ns, 1 MiB at least 0.8x the copy's rate. */
    static List<Row> verbs(Jmh jmh) throws Exception {
        Jmh.Results r = jmh.run(VERBS, "verbsWritePostPoll|segmentCopy", Map.of(), 1);
        double small = r.score("verbsWritePostPoll", "size", "64");
        double smallCopy = r.score("segmentCopy", "size", "64");
        double large = r.score("verbsWritePostPoll", "size", "1048576");
        double largeCopy = r.score("segmentCopy", "size", "1048576");
        return List.of(
                timeRow("verbs WRITE post+poll (software device)", "64 B", small, "MemorySegment.copy", smallCopy,
                        300, "<= 300 ns"),
                new Row("verbs WRITE post+poll (software device)", "1 MiB", gbps(1 << 20, large), "GB/s",
                        "MemorySegment.copy", gbps(1 << 20, largeCopy), "GB/s", largeCopy / large,
                        new Row.Aim(0.8, ">= 0.80x"), ""));
    }

    /** Grant + revoke of a 64 KiB slice on a connected TCP channel; aim of issue 12: at most 2 us. */
    static List<Row> grant(Jmh jmh) throws Exception {
        Jmh.Results r = jmh.run(GRANT, "grantAndRevoke|registerAndCloseSlice", Map.of(), 1);
        return List.of(timeRow("grant + revoke (TCP, 64 KiB slice)", "64 KiB", r.score("grantAndRevoke"),
                "register + close the slice", r.score("registerAndCloseSlice"), 2000, "<= 2000 ns"));
    }

    /** Staging borrow + release of a 4 KiB lease, one thread, p99; aim: p99 at most 1 us. */
    static List<Row> staging(Jmh jmh) throws Exception {
        Jmh.Results r = jmh.run(STAGING, "stagingBorrowRelease|referenceCommonsPool", Map.of(), 1);
        return List.of(timeRow("staging borrow + return p99", "4 KiB", r.percentile("stagingBorrowRelease", 99),
                "bare Commons Pool keyed p99", r.percentile("referenceCommonsPool", 99), 1000, "p99 <= 1000 ns"));
    }

    /** Session prepare -> ready -> final cycles per second, one thread; aim: at least 200 k/s. */
    static List<Row> session(Jmh jmh) throws Exception {
        Jmh.Results r = jmh.run(SESSION, "getCycle|putCycle|reference", Map.of(), 1);
        double reference = r.score("reference");
        List<Row> rows = new ArrayList<>();
        for (String cycle : List.of("getCycle", "putCycle")) {
            double s = r.score(cycle);
            rows.add(new Row("session prepare->ready->final (" + (cycle.startsWith("get") ? "GET" : "PUT") + ")",
                    "-", s, "cycles/s", "random id into/out of a map", reference, "ops/s", s / reference,
                    new Row.Aim(200_000 / reference, ">= 200 k/s"), ""));
        }
        return rows;
    }

    /** The cuObject facade's synchronous GET/PUT against raw WRITE/READ on the same transports and memory. */
    static List<Row> cuObjFacade(Jmh jmh) throws Exception {
        Jmh.Results r = jmh.run(CUOBJ, "facadeGet|facadePut|rawWrite|rawRead", Map.of(), 1);
        List<Row> rows = new ArrayList<>();
        for (String size : List.of("4096", "67108864")) {
            String label = size.equals("4096") ? "4 KiB" : "64 MiB";
            rows.add(Row.rate(S3Rows.COMPONENT + "cuObject facade GET (sync)", label, r.score("facadeGet", "size", size), "ops/s",
                    "raw WRITE, same transports", r.score("rawWrite", "size", size), 0.9, ""));
            rows.add(Row.rate(S3Rows.COMPONENT + "cuObject facade PUT (sync)", label, r.score("facadePut", "size", size), "ops/s",
                    "raw READ, same transports", r.score("rawRead", "size", size), 0.9, ""));
        }
        return rows;
    }

    /** A row for a figure in ns per operation: ratio = reference / result, the aim an absolute bound on it. */
    private static Row timeRow(String op, String size, double ns, String reference, double referenceNs,
            double aimNs, String aimText) {
        return new Row(op, size, ns, "ns", reference, referenceNs, "ns", referenceNs / ns,
                new Row.Aim(referenceNs / aimNs, aimText), "");
    }

    private static double gbps(long bytes, double ns) {
        return bytes / ns;
    }
}
