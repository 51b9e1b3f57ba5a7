package org.objrdma.api.staging;

/** Why a borrow failed. */
public enum StagingStatus {
    /** A byte or buffer limit stayed reached for the whole wait. */
    LIMIT,
    /** Size is 0, negative, or above the largest size class. */
    INVALID_SIZE,
    /** No transport is bound to register buffers with. */
    NO_TRANSPORT,
    /** The transport refused the registration. */
    REGISTRATION_FAILED,
    /** The pool is shutting down. */
    CLOSED
}
