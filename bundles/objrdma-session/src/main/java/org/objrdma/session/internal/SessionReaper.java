package org.objrdma.session.internal;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reaper agent: one pass every {@code reaper.period.ms} on its own daemon thread. A pass scans the dense
 * deadline slots, locks only the sessions whose earliest deadline passed, applies their deadlines and tears down
 * what that freed.
 */
final class SessionReaper {
    private static final Logger LOG = LoggerFactory.getLogger(SessionReaper.class);

    private final SessionTable table;
    private final DeadlineSlots deadlineSlots;
    private final long periodMs;
    private final Object lock = new Object();
    private ScheduledExecutorService executor; // guarded by lock

    SessionReaper(SessionTable table, DeadlineSlots deadlineSlots, long periodMs) {
        this.table = table;
        this.deadlineSlots = deadlineSlots;
        this.periodMs = periodMs;
    }

    /** One pass. @return sessions torn down by it */
    int pass() {
        long now = table.millis();
        int[] reaped = new int[1];
        deadlineSlots.forEachDue(deadline -> deadline < now, s -> {
            if (table.applyDeadlinesAndReap(s, now)) {
                reaped[0]++;
            }
        });
        return reaped[0];
    }

    /** Starts the agent's thread. Idempotent. */
    void start() {
        synchronized (lock) {
            if (executor != null) {
                return;
            }
            ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, "objrdma-session-reaper");
                thread.setDaemon(true);
                return thread;
            });
            e.setRemoveOnCancelPolicy(true);
            e.scheduleWithFixedDelay(this::passLogged, periodMs, periodMs, TimeUnit.MILLISECONDS);
            executor = e;
        }
    }

    private void passLogged() {
        try {
            pass();
        } catch (RuntimeException e) {
            // the scheduler would silently stop repeating a task that threw
            LOG.error("session reaper pass failed; the next pass runs as scheduled", e);
        }
    }

    /** Stops the agent's thread (waits up to a second for a running pass). Idempotent. */
    void stop() {
        ScheduledExecutorService e;
        synchronized (lock) {
            e = executor;
            executor = null;
        }
        if (e != null) {
            e.shutdownNow();
            try {
                e.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
