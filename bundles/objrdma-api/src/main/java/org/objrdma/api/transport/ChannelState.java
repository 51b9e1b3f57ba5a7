package org.objrdma.api.transport;

/** Where a {@link Channel} is in its life; a simplification of {@code ibv_qp_state}. */
public enum ChannelState {
    /**
     * Created, or {@link Channel#reset reset}; local endpoint known, not connected (verbs INIT). Receives may
     * be posted.
     */
    INIT,
    /** Connected to a peer; every operation may be posted (verbs RTS). */
    CONNECTED,
    /**
     * An operation failed or the peer vanished; new work completes with {@link WcStatus#WR_FLUSH_ERR} until
     * the channel is {@link Channel#reset reset} or closed.
     */
    ERROR,
    /** Closed by its owner; nothing may be posted. */
    CLOSED
}
