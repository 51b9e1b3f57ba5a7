package org.objrdma.itests;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A jstack-like dump of every thread of this JVM (the Karaf container when called in a probe), so that a wait
 * that times out in CI says which thread holds what and where each one is stuck, instead of only "timed out".
 */
final class ThreadDump {
    private ThreadDump() {
    }

    /** Every thread with its state, the lock it waits for and who owns it, its held locks and full stack. */
    static String all() {
        StringBuilder out = new StringBuilder("---- thread dump ----\n");
        for (ThreadInfo t : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            out.append('"').append(t.getThreadName()).append("\" #").append(t.getThreadId())
                    .append(t.isDaemon() ? " daemon" : "").append(' ').append(t.getThreadState());
            if (t.getLockName() != null) {
                out.append(" on ").append(t.getLockName());
            }
            if (t.getLockOwnerName() != null) {
                out.append(" owned by \"").append(t.getLockOwnerName()).append("\" #").append(t.getLockOwnerId());
            }
            out.append('\n');
            StackTraceElement[] stack = t.getStackTrace();
            for (int i = 0; i < stack.length; i++) {
                out.append("    at ").append(stack[i]).append('\n');
                for (MonitorInfo m : t.getLockedMonitors()) {
                    if (m.getLockedStackDepth() == i) {
                        out.append("    - locked ").append(m).append('\n');
                    }
                }
            }
            for (LockInfo l : t.getLockedSynchronizers()) {
                out.append("    - holds ").append(l).append('\n');
            }
            out.append('\n');
        }
        return out.toString();
    }

    /**
     * Polls {@code condition} every 50 ms until it holds; past {@code timeout} fails with {@code what} and a dump
     * of every thread (also written to stderr, which lands in the container's log when run in a probe).
     */
    static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                String dump = all();
                System.err.println("timed out after " + timeout + " waiting for: " + what + "\n" + dump);
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what + "\n" + dump);
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }
}
