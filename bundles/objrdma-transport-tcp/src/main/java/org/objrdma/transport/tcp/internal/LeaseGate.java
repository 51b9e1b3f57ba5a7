package org.objrdma.transport.tcp.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts the short leases under which the transport's threads touch memory, and shuts: after {@link #shut()}
 * no new lease is given, and {@link #awaitReturned} waits for the ones out. What a region and a grant share:
 * "closed" must mean "no longer touched", not merely "no longer findable".
 */
final class LeaseGate {
    /** Sign bit: shut; the low bits count leases out. */
    private static final int SHUT = Integer.MIN_VALUE;

    private final AtomicInteger state = new AtomicInteger();

    /** Takes a lease; false once shut. */
    boolean acquire() {
        while (true) {
            int s = state.get();
            if (s < 0) {
                return false;
            }
            if (state.compareAndSet(s, s + 1)) {
                return true;
            }
        }
    }

    /** Returns a lease taken by {@link #acquire()}. */
    void release() {
        state.decrementAndGet();
    }

    /** Refuses new leases from now on; true only for the call that shut it. */
    boolean shut() {
        while (true) {
            int s = state.get();
            if (s < 0) {
                return false;
            }
            if (state.compareAndSet(s, s | SHUT)) {
                return true;
            }
        }
    }

    boolean isShut() {
        return state.get() < 0;
    }

    int leasesOut() {
        return state.get() & ~SHUT;
    }

    /** Waits up to {@code nanos} for every lease to come back; true if none is out. */
    boolean awaitReturned(long nanos) {
        long deadline = System.nanoTime() + nanos;
        while (leasesOut() > 0) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            try {
                TimeUnit.MICROSECONDS.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return leasesOut() == 0;
            }
        }
        return true;
    }
}
