package org.objrdma.client.sdk;

import java.util.function.BooleanSupplier;

/** Waits for a condition the server reaches a moment after its answer (counters, leases), with a timeout. */
public final class Waits {
    private Waits() {
    }

    public static void until(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(20);
        }
    }
}
