package org.objrdma.api.session;

/** Where a session is in its life; {@link #code()} is the snapshot value of the C core. */
public enum SessionState {
    /** Created by prepare; staging may be borrowed; waits for commit and then READY. */
    PREPARED(0),
    /** Reserved by the C core; not used by objrdma. */
    PUBLISHING(1),
    /** READY claimed it; the data phase runs. */
    TRANSFERRING(2),
    /** Data phase succeeded; waits for the finalizer (finish_final, or get_put_data then finish_put). */
    COMPLETING(3),
    /** Being torn down. */
    REAPING(4);

    /** Bit OR'd onto {@link #code()} in the C snapshot when the session is marked for reaping. */
    public static final int REAP_PENDING_MARKER = 0x80;

    private final int code;

    SessionState(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}
