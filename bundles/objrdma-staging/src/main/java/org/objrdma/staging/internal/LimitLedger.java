package org.objrdma.staging.internal;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingStatus;

/**
 * What is lent out against the four limits: buffers per size class, bytes in total, bytes per principal
 * and buffers per principal in one size class. A borrow is charged here before it touches the buffer pool
 * and released after the buffer is back in it, so the buffer pool itself never has to wait.
 *
 * <p>Fairness: one principal holds at most {@code max.buffers.per.principal.per.class} buffers of a class,
 * so it cannot take a whole class from the others; and when a class is exhausted (every buffer lent) a
 * charge is served from the next larger class, one step up, if that has room.
 *
 * <p>Fast path: while nobody waits, a charge is three atomic updates and no lock. Once a charge does not
 * fit, it queues; while anyone is queued, new charges queue behind them (no barging). Releases hand the
 * freed room to queued charges in arrival order. Queued charges are granted first come first served for
 * total bytes and per size class, so a large request is not starved by a stream of small ones; a charge
 * that waits only for its own principal's limit never holds up other principals. Every wait is bounded.
 */
final class LimitLedger {

    /** Which limit a charge ran into, for the failure message. */
    enum Outcome { GRANTED, CLASS_FULL, TOTAL_FULL, PRINCIPAL_FULL, PRINCIPAL_CLASS_FULL }

    /** What a principal holds now; mutated only inside {@link ConcurrentHashMap#compute}. */
    private static final class PrincipalCharge {
        long bytes;
        final int[] buffersPerClass;

        PrincipalCharge(int classes) {
            buffersPerClass = new int[classes];
        }
    }

    /** The four limits, replaced whole by {@link #limit}: a charge reads one consistent set. */
    record Limits(long maxTotalBytes, long maxBytesPerPrincipal, int maxBuffersPerClass,
                  int maxBuffersPerPrincipalPerClass) {
        static Limits of(StagingSettings s) {
            return new Limits(s.maxTotalBytes(), s.maxBytesPerPrincipal(), s.maxBuffersPerClass(),
                    s.maxBuffersPerPrincipalPerClass());
        }
    }

    private volatile Limits limits;
    private final SizeClasses classes;

    private final AtomicIntegerArray buffersLent;
    private final AtomicLong bytesLent = new AtomicLong();
    /** Only principals with bytes lent have an entry; it goes when their count returns to zero. */
    private final ConcurrentHashMap<PrincipalId, PrincipalCharge> lentPerPrincipal = new ConcurrentHashMap<>();

    private final ReentrantLock lock = new ReentrantLock();
    /** Charges that did not fit, oldest first. Guarded by {@link #lock}. */
    private final ArrayDeque<Waiter> queue = new ArrayDeque<>();
    /** The queue's length, readable without the lock: zero means the fast path may run. */
    private final AtomicInteger queued = new AtomicInteger();
    private volatile boolean closed;

    LimitLedger(StagingSettings settings, SizeClasses classes) {
        this.limits = Limits.of(settings);
        this.classes = classes;
        this.buffersLent = new AtomicIntegerArray(classes.count());
    }

    /**
     * What a charge got.
     *
     * @param classIndex the class charged: the one asked for, or the next larger one when that was exhausted
     * @param waited     true if the charge had to wait (it did not fit at once)
     */
    record Grant(int classIndex, boolean waited) {
    }

    /**
     * Charges one buffer of class {@code classIndex} (or, when that class is exhausted, of the next larger
     * one) to {@code principal}, waiting up to {@code maxWaitNanos} for room.
     *
     * @throws StagingException LIMIT if a limit stayed reached for the whole wait (or the wait was
     *         interrupted; the interrupt flag is kept), CLOSED if the ledger closed first. Nothing is charged.
     */
    Grant charge(int classIndex, PrincipalId principal, long maxWaitNanos) throws StagingException {
        long bytes = classes.size(classIndex);
        if (closed) {
            throw closedException();
        }
        if (queued.get() == 0) {
            Waiter direct = new Waiter(classIndex, bytes, principal);
            if (tryChargeOrNext(direct, false) == Outcome.GRANTED) {
                return new Grant(direct.grantedClass, false);
            }
        }
        Waiter w = new Waiter(classIndex, bytes, principal);
        boolean waited = chargeInLine(w, maxWaitNanos);
        return new Grant(w.grantedClass, waited);
    }

    /** Gives back what {@link #charge} took; {@code classIndex} is the class of the grant. */
    void release(int classIndex, PrincipalId principal) {
        long bytes = classes.size(classIndex);
        unchargePrincipal(principal, classIndex, bytes);
        bytesLent.addAndGet(-bytes);
        buffersLent.decrementAndGet(classIndex);
        grantIfQueued();
    }

    /**
     * Applies new limits from now on. What is lent stays lent: a lower limit only holds back charges until
     * enough comes back; a higher one may admit queued charges at once.
     */
    void limit(Limits next) {
        limits = next;
        grantIfQueued();
    }

    Limits limits() {
        return limits;
    }

    /**
     * Charges a dedicated (unpooled) buffer of exactly {@code bytes}: total and principal bytes, no size class.
     * Never waits (a buffer that large waiting behind pooled ones would hold up its session's PREPARE for
     * nothing): when either limit has no room it fails at once with LIMIT naming the limit.
     */
    void chargeDedicated(long bytes, PrincipalId principal) throws StagingException {
        if (closed) {
            throw closedException();
        }
        Limits l = limits;
        for (;;) {
            long total = bytesLent.get();
            if (total + bytes > l.maxTotalBytes()) {
                throw new StagingException(StagingStatus.LIMIT, "limit max.total.bytes (" + l.maxTotalBytes()
                        + " bytes, " + total + " lent) has no room for a dedicated " + bytes + "-byte buffer");
            }
            if (bytesLent.compareAndSet(total, total + bytes)) {
                break;
            }
        }
        boolean[] granted = new boolean[1];
        lentPerPrincipal.compute(principal, (p, c) -> {
            PrincipalCharge charge = c == null ? new PrincipalCharge(classes.count()) : c;
            synchronized (charge) {
                if (charge.bytes + bytes <= l.maxBytesPerPrincipal()) {
                    charge.bytes += bytes;
                    granted[0] = true;
                }
                return charge.bytes == 0 ? null : charge;
            }
        });
        if (!granted[0]) {
            bytesLent.addAndGet(-bytes);
            grantIfQueued();
            throw new StagingException(StagingStatus.LIMIT, "limit max.bytes.per.principal (" + l.maxBytesPerPrincipal()
                    + " bytes for " + principal + ") has no room for a dedicated " + bytes + "-byte buffer");
        }
    }

    /** Gives back what {@link #chargeDedicated} took. */
    void releaseDedicated(long bytes, PrincipalId principal) {
        lentPerPrincipal.computeIfPresent(principal, (p, charge) -> {
            synchronized (charge) {
                charge.bytes -= bytes;
                return charge.bytes == 0 ? null : charge;
            }
        });
        bytesLent.addAndGet(-bytes);
        grantIfQueued();
    }

    /** Fails every queued charge with CLOSED and refuses new ones. Releases still work. */
    void close() {
        lock.lock();
        try {
            closed = true;
            for (Waiter w : queue) {
                w.wakeUp.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    long bytesLent() {
        return bytesLent.get();
    }

    long bytesLent(PrincipalId principal) {
        PrincipalCharge c = lentPerPrincipal.get(principal);
        if (c == null) {
            return 0;
        }
        synchronized (c) {
            return c.bytes;
        }
    }

    /** Buffers of class {@code classIndex} lent to {@code principal} now. */
    int buffersLent(PrincipalId principal, int classIndex) {
        PrincipalCharge c = lentPerPrincipal.get(principal);
        if (c == null) {
            return 0;
        }
        synchronized (c) {
            return c.buffersPerClass[classIndex];
        }
    }

    /** Principals with bytes lent now. */
    int principalsCharged() {
        return lentPerPrincipal.size();
    }

    int buffersLent(int classIndex) {
        return buffersLent.get(classIndex);
    }

    int buffersLent() {
        int n = 0;
        for (int i = 0; i < buffersLent.length(); i++) {
            n += buffersLent.get(i);
        }
        return n;
    }

    int queuedCharges() {
        return queued.get();
    }

    private boolean chargeInLine(Waiter w, long maxWaitNanos) throws StagingException {
        long deadline = System.nanoTime() + maxWaitNanos;
        lock.lock();
        try {
            if (closed) {
                throw closedException();
            }
            queue.addLast(w);
            queued.incrementAndGet();
            grantQueued();
            if (w.granted) {
                return false;
            }
            while (!w.granted) {
                if (closed) {
                    leaveQueue(w);
                    throw closedException();
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    leaveQueue(w);
                    throw new StagingException(StagingStatus.LIMIT, limitMessage(w, maxWaitNanos));
                }
                try {
                    w.wakeUp.awaitNanos(remaining);
                } catch (InterruptedException e) {
                    if (w.granted) {
                        // granted in the same instant: keep the charge, keep the interrupt for the caller
                        Thread.currentThread().interrupt();
                        return true;
                    }
                    leaveQueue(w);
                    Thread.currentThread().interrupt();
                    throw new StagingException(StagingStatus.LIMIT,
                            "interrupted while waiting: " + limitMessage(w, maxWaitNanos), e);
                }
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Removes a waiter that gives up; those behind it may now fit. Under the lock. */
    private void leaveQueue(Waiter w) {
        if (queue.remove(w)) {
            queued.decrementAndGet();
        }
        grantQueued();
    }

    private void grantIfQueued() {
        // Pairs with chargeInLine: a waiter publishes itself in 'queued' before it checks the counters, and
        // a release updates the counters before it reads 'queued', so one of the two always sees the other.
        if (queued.get() > 0) {
            lock.lock();
            try {
                grantQueued();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Grants every queued charge that fits, oldest first. Under the lock. */
    private void grantQueued() {
        if (closed) {
            return;
        }
        boolean totalBlocked = false;
        long classBlocked = 0; // bit i: an older charge of class i still waits for that class
        for (Iterator<Waiter> it = queue.iterator(); it.hasNext(); ) {
            Waiter w = it.next();
            long classBit = 1L << w.classIndex;
            if (totalBlocked || (classBlocked & classBit) != 0) {
                continue; // first come, first served for shared room
            }
            Outcome o = tryChargeOrNext(w, true);
            w.lastOutcome = o;
            switch (o) {
                case GRANTED -> {
                    it.remove();
                    queued.decrementAndGet();
                    w.granted = true;
                    w.wakeUp.signal();
                }
                case TOTAL_FULL -> totalBlocked = true;
                case CLASS_FULL -> classBlocked |= classBit;
                case PRINCIPAL_FULL, PRINCIPAL_CLASS_FULL -> {
                    // only this principal's own later charges are affected, and they are checked on their own
                }
            }
        }
    }

    /**
     * Charges the waiter's class or, when that class is exhausted, the next larger one; records the class
     * granted in the waiter. The outcome of a refusal is that of the class asked for.
     */
    private Outcome tryChargeOrNext(Waiter w, boolean underLock) {
        Outcome o = tryCharge(w.classIndex, w.bytes, w.principal, underLock);
        if (o == Outcome.GRANTED) {
            w.grantedClass = w.classIndex;
            return o;
        }
        if (o == Outcome.CLASS_FULL
                && buffersLent(w.principal, w.classIndex) >= limits.maxBuffersPerPrincipalPerClass()) {
            return Outcome.PRINCIPAL_CLASS_FULL; // its share of this class is used up: no spilling into the next
        }
        int next = w.classIndex + 1;
        if (o == Outcome.CLASS_FULL && next < classes.count()
                && tryCharge(next, classes.size(next), w.principal, underLock) == Outcome.GRANTED) {
            w.grantedClass = next;
            return Outcome.GRANTED;
        }
        return o;
    }

    /**
     * Charges class, total and principal (bytes and buffers of the class), or nothing. A partial charge is undone; outside the lock the undo
     * may have made a queued charge fail a check it would now pass, so it also grants queued charges.
     */
    private Outcome tryCharge(int classIndex, long bytes, PrincipalId principal, boolean underLock) {
        Limits l = limits;
        for (;;) {
            int n = buffersLent.get(classIndex);
            if (n >= l.maxBuffersPerClass()) {
                return Outcome.CLASS_FULL;
            }
            if (buffersLent.compareAndSet(classIndex, n, n + 1)) {
                break;
            }
        }
        for (;;) {
            long total = bytesLent.get();
            if (total + bytes > l.maxTotalBytes()) {
                buffersLent.decrementAndGet(classIndex);
                if (!underLock) {
                    grantIfQueued();
                }
                return Outcome.TOTAL_FULL;
            }
            if (bytesLent.compareAndSet(total, total + bytes)) {
                break;
            }
        }
        Outcome[] principalOutcome = new Outcome[1];
        lentPerPrincipal.compute(principal, (p, c) -> {
            PrincipalCharge charge = c == null ? new PrincipalCharge(classes.count()) : c;
            synchronized (charge) {
                if (charge.bytes + bytes > l.maxBytesPerPrincipal()) {
                    principalOutcome[0] = Outcome.PRINCIPAL_FULL;
                } else if (charge.buffersPerClass[classIndex] >= l.maxBuffersPerPrincipalPerClass()) {
                    principalOutcome[0] = Outcome.PRINCIPAL_CLASS_FULL;
                } else {
                    charge.bytes += bytes;
                    charge.buffersPerClass[classIndex]++;
                    principalOutcome[0] = Outcome.GRANTED;
                }
                return charge.bytes == 0 ? null : charge;
            }
        });
        if (principalOutcome[0] != Outcome.GRANTED) {
            bytesLent.addAndGet(-bytes);
            buffersLent.decrementAndGet(classIndex);
            if (!underLock) {
                grantIfQueued();
            }
            return principalOutcome[0];
        }
        return Outcome.GRANTED;
    }

    private void unchargePrincipal(PrincipalId principal, int classIndex, long bytes) {
        lentPerPrincipal.computeIfPresent(principal, (p, charge) -> {
            synchronized (charge) {
                charge.bytes -= bytes;
                charge.buffersPerClass[classIndex]--;
                return charge.bytes == 0 ? null : charge;
            }
        });
    }

    private String limitMessage(Waiter w, long maxWaitNanos) {
        String limit = switch (w.lastOutcome == null ? Outcome.TOTAL_FULL : w.lastOutcome) {
            case CLASS_FULL -> "max.buffers.per.class (" + limits.maxBuffersPerClass() + " buffers of " + w.bytes + " bytes)";
            case PRINCIPAL_FULL -> "max.bytes.per.principal (" + limits.maxBytesPerPrincipal() + " bytes for " + w.principal + ")";
            case PRINCIPAL_CLASS_FULL -> "max.buffers.per.principal.per.class (" + limits.maxBuffersPerPrincipalPerClass()
                    + " buffers of " + w.bytes + " bytes for " + w.principal + ")";
            case TOTAL_FULL, GRANTED -> "max.total.bytes (" + limits.maxTotalBytes() + " bytes)";
        };
        return "limit " + limit + " stayed reached for " + TimeUnit.NANOSECONDS.toMillis(maxWaitNanos)
                + " ms; a " + w.bytes + "-byte buffer could not be lent";
    }

    private static StagingException closedException() {
        return new StagingException(StagingStatus.CLOSED, "the staging pool is shutting down");
    }

    /** One queued charge. Fields other than the final ones are guarded by the ledger's lock. */
    private final class Waiter {
        final int classIndex;
        final long bytes;
        final PrincipalId principal;
        final Condition wakeUp = lock.newCondition();
        boolean granted;
        int grantedClass = -1;
        Outcome lastOutcome;

        Waiter(int classIndex, long bytes, PrincipalId principal) {
            this.classIndex = classIndex;
            this.bytes = bytes;
            this.principal = principal;
        }
    }
}
