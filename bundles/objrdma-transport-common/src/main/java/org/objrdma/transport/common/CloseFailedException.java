package org.objrdma.transport.common;

/**
 * A checked exception thrown by a close that {@link Closer#closeAll(AutoCloseable...)} reports; it is the
 * cause, with the later failures of the same call suppressed on it.
 */
public final class CloseFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CloseFailedException(Throwable cause) {
        super("closing failed: " + cause, cause);
    }
}
