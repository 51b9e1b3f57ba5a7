package org.objrdma.client.sdk;

/**
 * The client's {@code rdma.min.bytes} (see {@link RdmaS3#DEFAULT_MIN_BYTES}): the span below which a transfer goes
 * over plain HTTP by this client's choice, without asking for RDMA. Not a decline: the result's
 * {@code declineReason} stays null, its path says HTTP.
 */
record MinBytes(long bytes) {
    /** @throws IllegalArgumentException {@code bytes < 1} */
    MinBytes {
        if (bytes < 1) {
            throw new IllegalArgumentException("rdma.min.bytes must be at least 1, was " + bytes);
        }
    }

    /** True when a span of {@code span} bytes goes over HTTP by this client's choice (an empty span never does). */
    boolean choosesHttp(long span) {
        return span > 0 && span < bytes;
    }
}
