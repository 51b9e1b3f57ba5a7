package org.objrdma.transport.tcp.internal;

import org.objrdma.api.transport.WcStatus;

/**
 * Why a connection ended, and so how its unfinished work completes: the oldest unfinished request gets
 * {@link #headStatus()}, the rest {@link WcStatus#WR_FLUSH_ERR} (the verbs pattern: the request the error
 * hit reports it, the others are flushed). {@link #vendorCode()} goes into {@code Completion.vendorError}
 * so logs can tell the causes apart.
 */
enum EndCause {
    /** The peer closed the connection at a frame boundary (its channel closed or its process ended). */
    PEER_CLOSED(WcStatus.RETRY_EXC_ERR, 1, "peer closed the connection"),
    /** The connection broke: reset, end of stream inside a frame, or a socket error. */
    PEER_VANISHED(WcStatus.RETRY_EXC_ERR, 2, "peer vanished"),
    /** Nothing arrived within the keepalive timeout. */
    KEEPALIVE_TIMEOUT(WcStatus.RETRY_EXC_ERR, 3, "keepalive timeout: peer silent"),
    /** The peer sent something the protocol does not allow. */
    PROTOCOL_VIOLATION(WcStatus.BAD_RESP_ERR, 4, "protocol violation by the peer"),
    /** This side refused a peer request and sent a negative acknowledgement; the channel is in error. */
    REFUSED_PEER(WcStatus.WR_FLUSH_ERR, 5, "refused a peer request"),
    /** The peer refused one of our requests; that request carries the peer's status. */
    REFUSED_BY_PEER(WcStatus.WR_FLUSH_ERR, 6, "peer refused a request"),
    /** A local error (local protection, batch timeout) put the channel in error. */
    LOCAL_ERROR(WcStatus.WR_FLUSH_ERR, 7, "local error"),
    /** The owner closed the channel or the transport shut down. */
    LOCAL_CLOSE(WcStatus.WR_FLUSH_ERR, 8, "channel closed"),
    /** A region in use was closed and the peer did not finish its frame within the grace time. */
    REGION_CLOSED(WcStatus.WR_FLUSH_ERR, 9, "region closed under a stalled transfer"),
    /** The owner reset the channel: everything unfinished is flushed, the channel goes back to INIT. */
    RESET(WcStatus.WR_FLUSH_ERR, 10, "channel reset"),
    /** The peer kept sending but stopped reading: our writer queue stayed full past the keepalive timeout. */
    PEER_NOT_READING(WcStatus.RETRY_EXC_ERR, 11, "peer does not read what we send");

    private final WcStatus headStatus;
    private final int vendorCode;
    private final String text;

    EndCause(WcStatus headStatus, int vendorCode, String text) {
        this.headStatus = headStatus;
        this.vendorCode = vendorCode;
        this.text = text;
    }

    WcStatus headStatus() {
        return headStatus;
    }

    int vendorCode() {
        return vendorCode;
    }

    String text() {
        return text;
    }
}
