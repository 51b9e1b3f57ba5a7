package org.objrdma.benchmarks.table;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fs store's 64 MiB put (fsync on) and ranged get against a bare {@code FileChannel} doing the same I/O on
 * the same file system, interleaved in one run: the store module's {@code FsStoreBench}, in a JVM of its own.
 * Aim of issue 9: 0.9x the FileChannel rate.
 */
final class StoreRows {
    private static final Pattern LINE = Pattern.compile(
            "^(put 64 MiB \\(fsync\\)|ranged get 64 MiB)\\s+store\\s+([0-9.]+) MiB/s\\s+FileChannel\\s+([0-9.]+) MiB/s.*");

    private StoreRows() {
    }

    static List<Row> measure(boolean quick, Path out) throws Exception {
        List<String> lines = ChildProcess.java(out.resolve("fs-store.log"), "org.objrdma.store.fs.internal.FsStoreBench",
                out.resolve("fs-store-root").toString(), quick ? "1" : "5", quick ? "0.2" : "1");
        List<Row> rows = new ArrayList<>();
        for (String line : lines) {
            Matcher m = LINE.matcher(line.trim());
            if (m.matches()) {
                boolean put = m.group(1).startsWith("put");
                rows.add(Row.rate(put ? "fs store put (fsync)" : "fs store ranged get", "64 MiB",
                        Double.parseDouble(m.group(2)), "MiB/s", put ? "FileChannel write+force+rename" : "FileChannel read",
                        Double.parseDouble(m.group(3)), 0.9, ""));
            }
        }
        if (rows.size() != 2) {
            throw new IllegalStateException("FsStoreBench printed " + rows.size() + " of its 2 figures: " + lines);
        }
        return rows;
    }
}
