package org.objrdma.verbs.internal.transport;

import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * What the completion poller does between polls that found nothing while work is outstanding. With nothing
 * outstanding at all the poller parks until new work wakes it, whatever the strategy.
 *
 * <ul>
 *   <li>{@link Kind#SPIN}: {@link Thread#onSpinWait()} only — lowest latency, one core busy while work is
 *       in flight.</li>
 *   <li>{@link Kind#BACKOFF}: spin a while, then yield a while, then park for a time that doubles from 1 µs
 *       up to {@code maxParkNanos} — a few µs of extra latency after a quiet spell, no busy core.</li>
 * </ul>
 * Not thread-safe: one instance per poller thread.
 */
public final class IdleStrategy {

    /** The configurable kinds, as {@code poller.idle} names them. */
    public enum Kind {
        SPIN, BACKOFF;

        /** {@code spin} or {@code backoff}, any case. */
        public static Kind parse(String value) {
            String v = value == null ? "" : value.strip().toUpperCase(Locale.ROOT);
            for (Kind k : values()) {
                if (k.name().equals(v)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("poller.idle must be spin or backoff, was '" + value + "'");
        }
    }

    static final int SPINS = 1_000;
    static final int YIELDS = 100;
    static final long MIN_PARK_NANOS = 1_000;

    private final Kind kind;
    private final long maxParkNanos;
    private int idleRounds;
    private long parkNanos = MIN_PARK_NANOS;

    public IdleStrategy(Kind kind, long maxParkNanos) {
        if (maxParkNanos < MIN_PARK_NANOS) {
            throw new IllegalArgumentException("the longest park must be at least 1 µs, was " + maxParkNanos + " ns");
        }
        this.kind = kind;
        this.maxParkNanos = maxParkNanos;
    }

    public Kind kind() {
        return kind;
    }

    /** Called after a round that found work. */
    public void reset() {
        idleRounds = 0;
        parkNanos = MIN_PARK_NANOS;
    }

    /** Called after a round that found nothing. */
    public void idle() {
        if (kind == Kind.SPIN) {
            Thread.onSpinWait();
            return;
        }
        idleRounds++;
        if (idleRounds <= SPINS) {
            Thread.onSpinWait();
        } else if (idleRounds <= SPINS + YIELDS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(maxParkNanos, parkNanos * 2);
        }
    }

    /** How long the next park would be; for tests. */
    long currentParkNanos() {
        return parkNanos;
    }
}
