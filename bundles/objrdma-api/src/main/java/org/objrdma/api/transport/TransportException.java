package org.objrdma.api.transport;

import java.util.Objects;

/** A transport call that was refused before any work was queued. Nothing changed. */
public class TransportException extends Exception {
    private static final long serialVersionUID = 1L;

    private final TransportError error;

    public TransportException(TransportError error, String message) {
        super(message);
        this.error = Objects.requireNonNull(error, "error");
    }

    public TransportException(TransportError error, String message, Throwable cause) {
        super(message, cause);
        this.error = Objects.requireNonNull(error, "error");
    }

    /** The named reason. */
    public TransportError error() {
        return error;
    }

    @Override
    public String getMessage() {
        return error + ": " + super.getMessage();
    }
}
