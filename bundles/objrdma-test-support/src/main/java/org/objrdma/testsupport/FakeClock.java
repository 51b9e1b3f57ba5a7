package org.objrdma.testsupport;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when the test says so, at millisecond resolution. A {@link Clock} (so an
 * {@code InstantSource}) for code that takes one; {@link #millis()} for a monotonic millisecond source
 * ({@code fakeClock::millis}).
 */
public final class FakeClock extends Clock {
    private final AtomicLong epochMillis;

    /** Starts at 2026-01-01T00:00:00Z. */
    public FakeClock() {
        this(Instant.parse("2026-01-01T00:00:00Z"));
    }

    public FakeClock(Instant start) {
        this.epochMillis = new AtomicLong(start.toEpochMilli());
    }

    /** A clock at {@code millis} milliseconds after the epoch. */
    public static FakeClock atMillis(long millis) {
        return new FakeClock(Instant.ofEpochMilli(millis));
    }

    @Override
    public long millis() {
        return epochMillis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(epochMillis.get());
    }

    /** Moves the clock forward by {@code ms} (a negative value moves it back: a test of a clock step). */
    public void advance(long ms) {
        epochMillis.addAndGet(ms);
    }

    public void advance(Duration d) {
        advance(d.toMillis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    /** The same clock: the zone does not matter to a test's instants. */
    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public String toString() {
        return "FakeClock[" + instant() + "]";
    }
}
