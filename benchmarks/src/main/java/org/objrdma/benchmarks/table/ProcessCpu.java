package org.objrdma.benchmarks.table;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU time a server process has used so far, user plus system, read from {@code /proc/<pid>/stat} (fields 14
 * and 15, in clock ticks of {@code CLK_TCK}, 100 per second on Linux): the same counters {@code top} and {@code ps}
 * read, covering every thread of the JVM, including threads that have already ended. Resolution one tick (10 ms),
 * so a phase sampled around should last a second or more.
 */
final class ProcessCpu {
    /** Linux's USER_HZ: what /proc reports in, whatever the kernel's own tick is. */
    private static final double TICKS_PER_SECOND = 100.0;

    private final long pid;

    ProcessCpu(long pid) {
        this.pid = pid;
    }

    long pid() {
        return pid;
    }

    /** CPU seconds (user + system) the process has used since it started. */
    double seconds() throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        // the command name (field 2) is in parentheses and may hold spaces: count fields after its closing one
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        // f[0] is field 3 (state): utime is field 14, stime field 15
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
    }
}
