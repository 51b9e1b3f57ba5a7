package org.objrdma.api.session;

/** How the data phase of a READY ended: the {@code RC_READY_*} values of {@code rc_server_abi.h}. */
public enum ReadyOutcome {
    /** Bytes moved and verified; the session waits for its finalizer. */
    OK(0),
    /** The peer was not ready (GET: receiver not ready or retries exceeded); READY may be retried. */
    BUSY(1),
    /** No completion within the execution deadline; the session ends. */
    TIMEOUT(2),
    /** The completion arrived but did not match (immediate, opcode, byte count); the session ends. */
    VERIFY_FAIL(3),
    /** The transfer failed on the wire; the session ends. */
    WIRE_FAIL(4);

    private final int code;

    ReadyOutcome(int code) {
        this.code = code;
    }

    /** The {@code RC_READY_*} number. */
    public int code() {
        return code;
    }
}
