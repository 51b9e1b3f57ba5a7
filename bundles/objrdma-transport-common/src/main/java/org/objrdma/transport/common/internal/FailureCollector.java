package org.objrdma.transport.common.internal;

/**
 * The failures of one {@code closeAll}: the first is kept, every later one is added to it as suppressed, so a
 * caller that reports one exception reports them all. An interrupt seen on the way is remembered and the
 * thread's flag set again once everything is closed (a close must not swallow it, nor stop the others).
 */
public final class FailureCollector {
    private Throwable first;
    private boolean interrupted;

    /** Records {@code failure}; a second record of the very same instance adds nothing. */
    public void add(Throwable failure) {
        if (failure instanceof InterruptedException) {
            interrupted = true;
        }
        if (first == null) {
            first = failure;
        } else if (failure != first) {
            first.addSuppressed(failure);
        }
    }

    /** The first failure with the later ones suppressed, or null; sets the interrupt flag again if one was seen. */
    public Throwable result() {
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return first;
    }
}
