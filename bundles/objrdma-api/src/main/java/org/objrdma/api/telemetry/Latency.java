package org.objrdma.api.telemetry;

/**
 * Every latency objrdma records, in nanoseconds. Closed like {@link Counter}: ids never change once
 * released; new latencies are added at the end.
 */
public enum Latency {
    SESSION_READY("objrdma.session.ready.latency",
            "READY that claimed its session: from the call to its outcome (data phase included)"),
    SESSION_DATA_PHASE("objrdma.session.data_phase.latency",
            "data phase of a READY: the RDMA operations and their completions"),
    S3_REQUEST("objrdma.s3.request.latency", "S3 HTTP requests: from the servlet's entry to the answer written");

    private final String id;
    private final String description;

    Latency(String id, String description) {
        this.id = id;
        this.description = description;
    }

    /** Stable id, e.g. {@code objrdma.session.ready.latency}. */
    public String id() {
        return id;
    }

    /** One line saying what is timed. */
    public String description() {
        return description;
    }
}
