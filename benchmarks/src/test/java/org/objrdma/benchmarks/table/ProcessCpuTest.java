package org.objrdma.benchmarks.table;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** /proc/<pid>/stat of real processes: this JVM while it burns CPU, and a process that has ended. */
class ProcessCpuTest {
    @Test
    void countsTheCpuThisJvmBurns() throws Exception {
        ProcessCpu self = new ProcessCpu(ProcessHandle.current().pid());
        var threads = ManagementFactory.getThreadMXBean();
        double before = self.seconds();
        long threadBefore = threads.getCurrentThreadCpuTime();
        long x = 0;
        while (threads.getCurrentThreadCpuTime() - threadBefore < 400_000_000L) { // 0.4 s of this thread's CPU
            x += Long.numberOfTrailingZeros(x + System.nanoTime());
        }
        double spent = self.seconds() - before;
        // at least this thread's 0.4 s, less one tick of rounding at each end; the JVM's other threads add to it
        assertTrue(spent >= 0.38, "read " + spent + " s, burnt 0.4 s (" + x + ")");
        assertTrue(spent < 0.4 + 60, "read " + spent + " s");
    }

    @Test
    void aProcessThatEndedIsAnError() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        assertThrows(IOException.class, () -> new ProcessCpu(p.pid()).seconds());
    }
}
