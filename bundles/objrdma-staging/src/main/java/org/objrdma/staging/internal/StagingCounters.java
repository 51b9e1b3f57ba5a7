package org.objrdma.staging.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;

/**
 * The staging pool's counts: what {@link StagingStats} reports since start (waits, timeouts, failures, double
 * returns, overdue leases) and the same events as telemetry counters, counted in one call each so the two never
 * disagree; and the snapshot of {@link StagingStats} from the buffers and dedicated leases alive now.
 */
final class StagingCounters {
    private final Supplier<Telemetry> telemetry;
    private final LongAdder waits = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final LongAdder doubleReturns = new LongAdder();
    private final LongAdder overdueLeases = new LongAdder();
    private final LongAdder dedicatedBorrows = new LongAdder();

    /** @param telemetry read on every count, so a telemetry service can come and go */
    StagingCounters(Supplier<Telemetry> telemetry) {
        this.telemetry = telemetry;
    }

    /** A borrow waited for room under a limit and got it. */
    void waited() {
        waits.increment();
        telemetry.get().increment(Counter.STAGING_WAITS);
    }

    /** A pooled borrow waited for room under a limit and did not get it in time. */
    void waitedInVain() {
        waits.increment();
        timeouts.increment();
        Telemetry t = telemetry.get();
        t.increment(Counter.STAGING_WAITS);
        t.increment(Counter.STAGING_TIMEOUTS);
    }

    /** A dedicated borrow found no room under a limit (it does not wait). */
    void refusedAtLimit() {
        timeouts.increment();
        telemetry.get().increment(Counter.STAGING_TIMEOUTS);
    }

    /** A borrow failed for any other reason. */
    void failed() {
        failures.increment();
    }

    void borrowed(boolean dedicated) {
        if (dedicated) {
            dedicatedBorrows.increment();
        }
        telemetry.get().increment(Counter.STAGING_BORROWS);
    }

    void returned() {
        telemetry.get().increment(Counter.STAGING_RETURNS);
    }

    void doubleReturn() {
        doubleReturns.increment();
        telemetry.get().increment(Counter.STAGING_DOUBLE_RETURNS);
    }

    void overdue() {
        overdueLeases.increment();
        telemetry.get().increment(Counter.STAGING_OVERDUE_LEASES);
    }

    /**
     * The pool's stats now: every live buffer by class (lent or idle, whichever transport it is registered
     * with — a lease on a transport no longer preferred is still lent), dedicated leases as lent bytes of
     * their own size, and {@code pooledBorrows} (Commons Pool's count) plus the dedicated borrows.
     */
    StagingStats snapshot(SizeClasses classes, Collection<StagingBuffer> liveBuffers,
                          Collection<DedicatedLease> dedicatedLeases, long pooledBorrows) {
        List<StagingStats.SizeClass> perClass = new ArrayList<>(classes.count());
        long borrowed = 0;
        long idle = 0;
        long bytesBorrowed = 0;
        long bytesAllocated = 0;
        long[] activeIn = new long[classes.count()];
        long[] idleIn = new long[classes.count()];
        for (StagingBuffer b : liveBuffers) {
            if (b.currentLease() != null) {
                activeIn[b.classIndex()]++;
            } else {
                idleIn[b.classIndex()]++;
            }
        }
        for (int i = 0; i < classes.count(); i++) {
            long size = classes.size(i);
            long active = activeIn[i];
            long idleHere = idleIn[i];
            perClass.add(new StagingStats.SizeClass(size, active, idleHere));
            borrowed += active;
            idle += idleHere;
            bytesBorrowed += active * size;
            bytesAllocated += (active + idleHere) * size;
        }
        for (DedicatedLease lease : dedicatedLeases) {
            borrowed++;
            bytesBorrowed += lease.size();
            bytesAllocated += lease.size();
        }
        return new StagingStats(borrowed, idle, bytesBorrowed, bytesAllocated, pooledBorrows + dedicatedBorrows.sum(),
                waits.sum(), timeouts.sum(), failures.sum(), doubleReturns.sum(), overdueLeases.sum(), perClass);
    }
}
