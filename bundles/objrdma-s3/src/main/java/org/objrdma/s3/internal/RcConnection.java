package org.objrdma.s3.internal;

import java.util.concurrent.atomic.AtomicLong;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Transport;

/**
 * One cuObject-over-RC connection: a queue pair of the verbs transport connected to one client queue pair. It
 * grants nothing: the client's memory is reached only by the server's own READ and WRITE, for a signed request of
 * the principal the connection is bound to. State is guarded by the {@link RcConnectionTable}'s lock.
 */
final class RcConnection {

    final String id;
    final String source;
    final Transport transport;
    final Channel channel;
    final long openedNanos;
    private final AtomicLong workRequests = new AtomicLong();

    /** Bound by the first signed object request; null until then. */
    PrincipalId owner;
    /** A request is using it (one at a time). */
    boolean busy;
    /** Disconnect came while busy: ended when the request releases it. */
    boolean endRequested;
    boolean ended;
    long lastUseNanos;

    RcConnection(String id, String source, Transport transport, Channel channel, long now) {
        this.id = id;
        this.source = source;
        this.transport = transport;
        this.channel = channel;
        this.openedNanos = now;
        this.lastUseNanos = now;
    }

    long nextWorkRequestId() {
        return workRequests.incrementAndGet();
    }

    /** False once the queue pair failed or the transport closed it: the connection can only end. */
    boolean usable() {
        return channel.state() == ChannelState.CONNECTED;
    }

    @Override
    public String toString() {
        // logs name a prefix of the id only: the whole id is what the client's requests present
        return "RcConnection[" + id.substring(0, 6) + "…, source " + source + ", qp " + channel.localEndpoint().queueNumber()
                + "]";
    }
}
