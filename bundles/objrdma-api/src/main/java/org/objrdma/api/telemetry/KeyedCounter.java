package org.objrdma.api.telemetry;

/**
 * Counters split by a key the counting code knows only at run time (an S3 error code). Closed like
 * {@link Counter}; the keys under each are bounded by the implementation.
 */
public enum KeyedCounter {
    S3_ERRORS_BY_CODE("objrdma.s3.errors.by_code", "S3 error answers by their S3 error code (AccessDenied, NoSuchKey, ...)");

    private final String id;
    private final String description;

    KeyedCounter(String id, String description) {
        this.id = id;
        this.description = description;
    }

    /** Stable id, e.g. {@code objrdma.s3.errors.by_code}. */
    public String id() {
        return id;
    }

    /** One line saying what is counted and what the keys are. */
    public String description() {
        return description;
    }
}
