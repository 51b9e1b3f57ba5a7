package org.objrdma.api.telemetry;

/**
 * Every counter objrdma keeps. Closed on purpose: dashboards key on {@link #id()}, which never changes
 * once released; new counters are added at the end, never renamed or removed.
 */
public enum Counter {
    TRANSPORT_REGIONS_REGISTERED("objrdma.transport.regions.registered", "memory regions registered"),
    TRANSPORT_REGIONS_DEREGISTERED("objrdma.transport.regions.deregistered", "memory regions deregistered"),
    TRANSPORT_CHANNELS_OPENED("objrdma.transport.channels.opened", "channels (queue pairs) opened"),
    TRANSPORT_CHANNELS_CLOSED("objrdma.transport.channels.closed", "channels (queue pairs) closed"),
    TRANSPORT_OPS_COMPLETED("objrdma.transport.ops.completed", "work requests completed successfully"),
    TRANSPORT_OPS_FAILED("objrdma.transport.ops.failed", "work requests completed with an error status"),
    TRANSPORT_BYTES_WRITTEN("objrdma.transport.bytes.written", "bytes moved by WRITE and WRITE_WITH_IMM"),
    TRANSPORT_BYTES_READ("objrdma.transport.bytes.read", "bytes moved by READ"),
    TRANSPORT_REMOTE_ACCESS_DENIED("objrdma.transport.remote.denied",
            "remote accesses refused for rkey, access or bounds"),

    STAGING_BORROWS("objrdma.staging.borrows", "staging leases handed out"),
    STAGING_RETURNS("objrdma.staging.returns", "staging leases returned"),
    STAGING_WAITS("objrdma.staging.waits", "borrows that waited for a limit"),
    STAGING_TIMEOUTS("objrdma.staging.timeouts", "borrows that failed with LIMIT after waiting"),
    STAGING_DOUBLE_RETURNS("objrdma.staging.double_returns", "second returns of a lease, ignored"),
    STAGING_OVERDUE_LEASES("objrdma.staging.overdue", "leases reported as held past their deadline"),

    SESSIONS_PREPARED("objrdma.session.prepared", "sessions created by PREPARE"),
    SESSIONS_READY_OK("objrdma.session.ready.ok", "READY data phases that succeeded"),
    SESSIONS_READY_BUSY("objrdma.session.ready.busy", "READY data phases answered BUSY (peer not ready)"),
    SESSIONS_READY_FAILED("objrdma.session.ready.failed", "READY data phases that failed (timeout, verify, wire)"),
    SESSIONS_ENDED("objrdma.session.ended", "sessions torn down, whatever the reason"),
    SESSIONS_EXPIRED("objrdma.session.expired", "sessions ended by a deadline"),
    SESSIONS_CANCELLED("objrdma.session.cancelled", "sessions ended by CANCEL or cancel-all"),

    CUOBJ_GETS("objrdma.cuobj.get", "cuObject GETs served (server WRITE)"),
    CUOBJ_PUTS("objrdma.cuobj.put", "cuObject PUTs served (server READ)"),
    CUOBJ_ERRORS("objrdma.cuobj.errors", "cuObject calls that returned a negative errno"),

    S3_REQUESTS("objrdma.s3.requests", "S3 HTTP requests handled"),
    S3_ERRORS("objrdma.s3.errors", "S3 HTTP requests answered with an error"),

    CUOBJ_CONNECTIONS_EVICTED("objrdma.cuobj.connections.evicted",
            "kept client agent connections evicted because they failed or their peer went away");

    private final String id;
    private final String description;

    Counter(String id, String description) {
        this.id = id;
        this.description = description;
    }

    /** Stable id, e.g. {@code objrdma.session.prepared}. */
    public String id() {
        return id;
    }

    /** One line saying what is counted. */
    public String description() {
        return description;
    }

    /** The counter with {@code id}, or null. */
    public static Counter fromId(String id) {
        for (Counter c : values()) {
            if (c.id.equals(id)) {
                return c;
            }
        }
        return null;
    }
}
