package org.objrdma.api.session;

/**
 * Status of a session-manager call: the {@code RC_*} codes of {@code rc_server_abi.h}, same numbers.
 * "Preserve" errors ({@link #STATE}, {@link #SESSION}) leave the session exactly as it was.
 */
public enum RcStatus {
    OK(0, "success"),
    /** An argument is invalid (op, size, offset overflow, malformed token, empty target). */
    ARG(1, "invalid argument"),
    /** The call is not legal in the session's state; the session is preserved. */
    STATE(2, "wrong state; session preserved"),
    /** Owner or cookie mismatch; the session is preserved. */
    SESSION(3, "owner or cookie mismatch; session preserved"),
    /** Handle invalid, already consumed, or the session is ending. */
    STALE(4, "stale or duplicate handle, or session ending"),
    /** No session with that id. */
    NO_SESSION(5, "no such session"),
    /** A lease or view is already outstanding. */
    DOUBLE(6, "lease or view already outstanding"),
    /** The data transfer failed on the wire. */
    WIRE(7, "transfer failed on the wire"),
    /** Fewer bytes were staged than requested. */
    SHORT(8, "staged bytes differ from the requested size"),
    /** A string is too long (target, etag, version id). */
    TRUNC(9, "string too long"),
    /** A session, byte, queue-pair or slot limit is reached. */
    LIMIT(10, "limit reached"),
    /** An internal failure (transport, randomness, a staging pool that refused for another reason). */
    INTERNAL(11, "internal error"),
    /**
     * The session manager is shutting down and admits no new PREPARE or READY (the C core's admission
     * barrier; a route answers 503). objrdma's number: the C core has no code for it.
     */
    SHUTDOWN(12, "shutting down; not admitting new work");

    private final int code;
    private final String description;

    RcStatus(int code, String description) {
        this.code = code;
        this.description = description;
    }

    /** The {@code RC_*} number. */
    public int code() {
        return code;
    }

    public String description() {
        return description;
    }

    public boolean isOk() {
        return this == OK;
    }

    /** The status with number {@code code}, or {@link #INTERNAL} for an unknown number. */
    public static RcStatus fromCode(int code) {
        for (RcStatus s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return INTERNAL;
    }
}
