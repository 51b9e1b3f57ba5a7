package org.objrdma.api.session;

/** Why a session ended. */
public enum TerminalReason {
    /** The finalizer ran after a successful data phase (finish_final, or finish_put). */
    COMPLETED,
    /** Prepare was aborted (finish_prepare not committed, failed staging). */
    ABORTED,
    /** The owner cancelled it, or cancel_all ran. */
    CANCELLED,
    /** A prep, exec or lease deadline passed. */
    EXPIRED,
    /** The data phase failed (timeout, verify, wire). */
    FAILED,
    /** The transport the session used went away. */
    TRANSPORT_LOST,
    /** The session manager shut down. */
    SHUTDOWN
}
