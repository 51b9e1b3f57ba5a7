package org.objrdma.transport.tcp.internal;

import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;

/**
 * How a channel connects: dials the peer's memory agent and authenticates with the peer channel's key; when
 * both sides dial at once, the side whose {@link PeerIdentity} sorts lower keeps its dial and the other waits
 * for it, so there is always exactly one connection. Its own class because this is a procedure with a
 * deadline across several steps, while the states it moves the channel through (INIT, DIALING, CONNECTED)
 * are the channel's, each step one locked transition there.
 */
final class ChannelDialer {
    private final TcpChannel channel;

    ChannelDialer(TcpChannel channel) {
        this.channel = channel;
    }

    void connect(EndpointInfo remote) throws TransportException {
        if (!(remote instanceof EndpointInfo.Tcp target)) {
            throw new TransportException(TransportError.INVALID_ARGUMENT,
                    "the TCP transport connects only to EndpointInfo.Tcp, got " + remote);
        }
        PeerIdentity wanted = new PeerIdentity(target.address(), target.channelId());
        if (wanted.equals(channel.self())) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "a channel cannot connect to itself");
        }
        if (!channel.beginDial(wanted, target)) {
            return; // the peer dialed us first
        }

        long deadline = System.nanoTime() + channel.options().connectTimeout().toNanos();
        MemoryAgent.DialResult result;
        try {
            result = channel.transport().agent().dial(target, channel.self(), deadline);
        } catch (TransportException e) {
            channel.dialFailed();
            throw e;
        }

        if (result.socket() != null) {
            TcpConnection started = channel.attachDialed(result.socket(), wanted, target);
            if (started == null) {
                TcpTransport.closeQuietly(result.socket());
                throw channel.leftInit();
            }
            started.start();
            return;
        }

        // crossed dials: the peer sorts lower, its dial to us wins; wait for it to arrive
        channel.awaitCrossedDial(wanted, target, deadline);
    }
}
