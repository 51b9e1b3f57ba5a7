package org.objrdma.session.internal;

/**
 * Milliseconds on a clock that never goes backwards: what every session deadline is measured on.
 * Injected so that tests move time by hand instead of sleeping.
 */
@FunctionalInterface
public interface MonotonicClock {

    /** Milliseconds since an arbitrary, fixed origin. */
    long millis();

    /** {@link System#nanoTime()} in milliseconds: immune to wall-clock steps. */
    static MonotonicClock system() {
        return () -> System.nanoTime() / 1_000_000L;
    }
}
