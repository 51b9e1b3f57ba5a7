package org.objrdma.wire;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How a server answers a failed dial of an address a client named: always after the same time, with the same words.
 * Without it the answer is a port scanner: a closed port fails in microseconds, a filtered one after the connect
 * timeout, an open one that does not speak the protocol after the handshake times out, and the reasons differ.
 *
 * <p>Every dial is cut off at {@link #delay()} ({@link #dialTimeout}), and every failed one is answered only once
 * {@link #delay()} has passed since it started ({@link #padFailure}), with {@link #UNREACHABLE} as the only text the
 * client sees (the real reason goes to the server's log). So a failed dial answers after {@code delay} plus
 * scheduling noise, whatever the port was. A successful dial is not delayed. The price: a failed dial holds its
 * caller's thread for {@code delay}, as a silent port did before.
 *
 * <p>Immutable; safe from any thread.
 */
public final class DialPacing {
    /** What a client is told about any failed dial. */
    public static final String UNREACHABLE = "the client endpoint could not be reached";

    /** Shortest allowed delay: below it a real dial across a network would be cut off. */
    public static final long MIN_DELAY_MS = 100;
    /** Longest allowed delay. */
    public static final long MAX_DELAY_MS = 60_000;
    /** The default: covers a connect whose first SYN was lost (retransmitted after 1 s) and a slow handshake. */
    public static final long DEFAULT_DELAY_MS = 2_500;

    private final Duration delay;

    private DialPacing(Duration delay) {
        this.delay = delay;
    }

    /**
     * Pacing with {@code delayMillis}.
     *
     * @throws IllegalArgumentException outside {@value #MIN_DELAY_MS}..{@value #MAX_DELAY_MS}, saying so
     */
    public static DialPacing ofMillis(long delayMillis) {
        String problem = problem(delayMillis);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return new DialPacing(Duration.ofMillis(delayMillis));
    }

    /** Why {@code delayMillis} is not a valid delay, or null. */
    public static String problem(long delayMillis) {
        return delayMillis < MIN_DELAY_MS || delayMillis > MAX_DELAY_MS
                ? delayMillis + " ms is not " + MIN_DELAY_MS + ".." + MAX_DELAY_MS + " ms" : null;
    }

    /** The time every failed dial is answered after, and the longest a dial may take. */
    public Duration delay() {
        return delay;
    }

    /** {@code configured} cut to {@link #delay()}: a dial that could outlast the pad would show through it. */
    public Duration dialTimeout(Duration configured) {
        return configured.compareTo(delay) < 0 ? configured : delay;
    }

    /**
     * Waits until {@link #delay()} has passed since {@code startedNanos} ({@link System#nanoTime()} when the dial
     * began). Returns at once if the thread is interrupted, with its interrupt flag set again.
     */
    public void padFailure(long startedNanos) {
        long until = startedNanos + delay.toNanos();
        long left;
        while ((left = until - System.nanoTime()) > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(left);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DialPacing other && delay.equals(other.delay);
    }

    @Override
    public int hashCode() {
        return delay.hashCode();
    }

    @Override
    public String toString() {
        return "DialPacing[" + delay.toMillis() + " ms]";
    }
}
