package org.objrdma.session.internal;

import java.util.concurrent.atomic.AtomicLong;

/** A clock that moves only when the test says so. */
final class FakeClock implements MonotonicClock {
    private final AtomicLong now = new AtomicLong(1_000_000);

    @Override
    public long millis() {
        return now.get();
    }

    void advance(long ms) {
        now.addAndGet(ms);
    }
}
