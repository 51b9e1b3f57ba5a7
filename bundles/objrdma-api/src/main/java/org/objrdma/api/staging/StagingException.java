package org.objrdma.api.staging;

import java.util.Objects;

/** A borrow that did not produce a lease. Nothing is charged. */
public class StagingException extends Exception {
    private static final long serialVersionUID = 1L;

    private final StagingStatus status;

    public StagingException(StagingStatus status, String message) {
        super(message);
        this.status = Objects.requireNonNull(status, "status");
    }

    public StagingException(StagingStatus status, String message, Throwable cause) {
        super(message, cause);
        this.status = Objects.requireNonNull(status, "status");
    }

    public StagingStatus status() {
        return status;
    }

    @Override
    public String getMessage() {
        return status + ": " + super.getMessage();
    }
}
