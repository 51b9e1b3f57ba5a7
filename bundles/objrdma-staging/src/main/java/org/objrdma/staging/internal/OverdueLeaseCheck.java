package org.objrdma.staging.internal;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Collection;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lease tracking: a scheduled check (its own daemon thread) that reports each pooled lease held past the
 * deadline, once per lease, to {@link LeaseReports} and the counters. The period can change live.
 */
final class OverdueLeaseCheck {
    private static final Logger LOG = LoggerFactory.getLogger(OverdueLeaseCheck.class);

    private final Collection<StagingBuffer> liveBuffers;
    private final Supplier<Duration> deadline;
    private final InstantSource clock;
    private final LeaseReports reports;
    private final StagingCounters counters;
    private final ScheduledExecutorService scheduler;
    private ScheduledFuture<?> task; // guarded by this

    OverdueLeaseCheck(Collection<StagingBuffer> liveBuffers, Supplier<Duration> deadline, InstantSource clock,
                      LeaseReports reports, StagingCounters counters) {
        this.liveBuffers = liveBuffers;
        this.deadline = deadline;
        this.clock = clock;
        this.reports = reports;
        this.counters = counters;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "objrdma-staging-lease-check");
            t.setDaemon(true);
            return t;
        });
    }

    /** Runs the check every {@code period} from now on, replacing the previous schedule. */
    synchronized void every(Duration period) {
        if (task != null) {
            task.cancel(false);
        }
        long millis = period.toMillis();
        task = scheduler.scheduleWithFixedDelay(this::runSafely, millis, millis, TimeUnit.MILLISECONDS);
    }

    /** Stops the schedule and its thread, for good. */
    void stop() {
        scheduler.shutdownNow();
    }

    /** Reports each lease held past the deadline, once per lease; returns how many it reported now. */
    int run() {
        Instant now = clock.instant();
        Duration limit = deadline.get();
        int reported = 0;
        for (StagingBuffer b : liveBuffers) {
            PooledLease lease = b.currentLease();
            if (lease == null || !lease.isActive()) {
                continue;
            }
            Duration held = Duration.between(lease.borrowedAt(), now);
            if (held.compareTo(limit) > 0 && lease.claimOverdueReport()) {
                counters.overdue();
                reports.overdue(lease, held, limit);
                reported++;
            }
        }
        return reported;
    }

    private void runSafely() {
        try {
            run();
        } catch (RuntimeException e) {
            // a failing report must not cancel the schedule
            LOG.warn("Staging lease check failed", e);
        }
    }
}
