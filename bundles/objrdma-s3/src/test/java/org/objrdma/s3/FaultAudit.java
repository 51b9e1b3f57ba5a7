package org.objrdma.s3;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.staging.StagingStats;

/**
 * The check every fault and load test ends with (issue 17): staging bytes lent 0, sessions 0, limit charges 0,
 * server channels 0 (but the cuObject facade's kept agent connections), no partial write left in the store's {@code tmp/}, each session's terminal notification
 * exactly once, and no thread or file-descriptor growth against a baseline taken after the first round of the
 * same fault (so lazily started pools and cached connections of the first round do not count as growth).
 *
 * <p>Counters may move a moment after an answer was produced (a session ends on the reaper, a channel closes
 * on the transport's thread), so every condition is waited for, with a timeout, before it is reported.
 */
final class FaultAudit {
    /** Threads a JVM may start or end on its own between two samples (JIT compiler threads, the common pool). */
    private static final int THREAD_SLACK = 3;
    /** File descriptors the JVM may open on its own (a jar, a /proc read in flight). */
    private static final int FD_SLACK = 4;
    private static final Duration WAIT = Duration.ofSeconds(20);

    private final RdmaFixture f;
    private final Path storeRoot;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private int baseThreads = -1;
    private int baseFds = -1;

    /** @param storeRoot the file store's root (its {@code tmp/} must be empty after a fault), or null */
    FaultAudit(RdmaFixture f, Path storeRoot) {
        this.f = f;
        this.storeRoot = storeRoot;
    }

    /** Open file descriptors of this process, from /proc/self/fd. */
    static int openFds() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return (int) s.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Records the thread and fd counts once everything is quiet: call it after the first round. */
    void baseline() throws InterruptedException {
        quiet("baseline");
        baseThreads = threads.getThreadCount();
        baseFds = openFds();
    }

    /** Everything returned after {@code what}; growth is checked once {@link #baseline()} ran. */
    void check(String what) throws InterruptedException {
        quiet(what);
        Map<String, Long> ends = f.ended.stream()
                .collect(Collectors.groupingBy(e -> e.sessionId().hex(), Collectors.counting()));
        ends.forEach((session, n) -> {
            if (n != 1) {
                throw new AssertionError(what + ": session " + session + " ended " + n + " times: " + f.ended);
            }
        });
        if (storeRoot != null) {
            try (Stream<Path> left = Files.list(storeRoot.resolve("tmp"))) {
                String partial = left.map(Path::toString).collect(Collectors.joining(", "));
                if (!partial.isEmpty()) {
                    throw new AssertionError(what + ": partial writes left in the store: " + partial);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        if (baseThreads >= 0) {
            await(what + ": threads back to " + baseThreads + " (+" + THREAD_SLACK + ")",
                    () -> threads.getThreadCount() <= baseThreads + THREAD_SLACK,
                    () -> "threads " + threads.getThreadCount());
            await(what + ": fds back to " + baseFds + " (+" + FD_SLACK + ")", () -> openFds() <= baseFds + FD_SLACK,
                    () -> "fds " + openFds());
        }
    }

    /** The number of terminal notifications seen for {@code session}. */
    long endsOf(String session) {
        return f.ended.stream().filter(e -> e.sessionId().hex().equals(session)).count();
    }

    private void quiet(String what) throws InterruptedException {
        await(what + ": staging returned", () -> {
            StagingStats s = f.pool.stats();
            return s.borrowed() == 0 && s.bytesBorrowed() == 0;
        }, () -> f.pool.stats().toString());
        await(what + ": no live session", () -> f.core.liveSessions() == 0, () -> f.core.snapshot().toString());
        await(what + ": no limit charge", () -> String.valueOf(f.core.usage()).equals(
                "Usage[sessions=0, qps=0, principals=0]"), () -> String.valueOf(f.core.usage()));
        // the cuObject facade keeps one channel per agent it dialed (its connection cache, cuobj README): those
        // are the only server channels allowed to stay; its registered buffers must all be gone
        await(what + ": server channels closed", () -> f.serverTransport.channelCount() == f.cuObj.agentConnectionCount(),
                () -> "channels " + f.serverTransport.channelCount() + ", kept agent connections "
                        + f.cuObj.agentConnectionCount());
        await(what + ": facade buffers deregistered", () -> f.cuObj.bufferCount() == 0,
                () -> "facade buffers " + f.cuObj.bufferCount());
    }

    static void await(String what, BooleanSupplier condition, java.util.function.Supplier<String> state)
            throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting for " + what + "; now: " + state.get());
            }
            Thread.sleep(10);
        }
    }

    /** Sessions by their terminal reason, for the load figures. */
    static Map<String, Long> reasons(Iterable<TerminalEvent> ended) {
        return java.util.stream.StreamSupport.stream(ended.spliterator(), false)
                .collect(Collectors.groupingBy(e -> e.reason().name(), java.util.TreeMap::new, Collectors.counting()));
    }
}
