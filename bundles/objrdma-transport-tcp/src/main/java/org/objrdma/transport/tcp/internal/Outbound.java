package org.objrdma.transport.tcp.internal;

import org.objrdma.api.transport.WcStatus;

/**
 * What a connection's {@link FrameWriter} sends: control items go out between payload frames, data items
 * one at a time. A type of its own because the reader side ({@link Responder}, {@link PeerBacklog}) queues
 * them and the writer drains them.
 */
sealed interface Outbound permits Outbound.Ack, Outbound.Ping, Outbound.Stop, Outbound.Finish,
        Outbound.SendRequest, Outbound.ReadResponse {

    Ping PING = new Ping();
    Stop STOP = new Stop();
    Finish FINISH = new Finish();

    /** A local close: what was queued for the peer before it goes out, then end of stream. */
    record Finish() implements Outbound {
    }

    /** An acknowledgement of a peer request; a refusal is the last thing the writer sends. */
    record Ack(long seq, WcStatus status, boolean refusal) implements Outbound {
    }

    record Ping() implements Outbound {
    }

    /** Stops the writer at once (the connection is being cut). */
    record Stop() implements Outbound {
    }

    /** One of our own posted requests, header and payload. */
    record SendRequest(SendOp op) implements Outbound {
    }

    /** The bytes of a peer's READ, served from a region through one of this channel's grants or (deprecated) not. */
    record ReadResponse(long seq, TcpRegion region, TcpGrant grant, long offset, long length)
            implements Outbound {
        boolean acquire() {
            return grant != null ? grant.acquire() : region.acquire();
        }

        void release() {
            if (grant != null) {
                grant.release();
            } else {
                region.release();
            }
        }
    }

    /** Data items keep their posting order; control items may overtake them. */
    static boolean isData(Outbound o) {
        return o instanceof SendRequest || o instanceof ReadResponse;
    }
}
