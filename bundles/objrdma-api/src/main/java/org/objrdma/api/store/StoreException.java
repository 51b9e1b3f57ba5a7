package org.objrdma.api.store;

import java.util.Objects;

/** A store call that failed with one {@link StoreError}; a failed write committed nothing. */
public class StoreException extends Exception {
    private static final long serialVersionUID = 1L;

    private final StoreError error;

    public StoreException(StoreError error, String message) {
        super(message);
        this.error = Objects.requireNonNull(error, "error");
    }

    public StoreException(StoreError error, String message, Throwable cause) {
        super(message, cause);
        this.error = Objects.requireNonNull(error, "error");
    }

    public StoreError error() {
        return error;
    }

    /** The message without the error code prefix, for an S3 {@code <Message>} element. */
    public String detail() {
        return super.getMessage();
    }

    @Override
    public String getMessage() {
        return error.s3Code() + ": " + super.getMessage();
    }
}
