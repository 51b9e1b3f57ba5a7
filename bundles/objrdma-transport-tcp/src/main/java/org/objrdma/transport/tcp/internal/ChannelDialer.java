package org.objrdma.transport.tcp.internal;

import java.nio.channels.SocketChannel;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;

/**
 * How a channel gets its connection: {@link #connect} dials the peer's memory agent and authenticates with the
 * peer channel's key; {@link #acceptInbound} decides whether an authenticated inbound connection becomes the
 * channel's. When both sides dial at once, the side whose {@link PeerIdentity} sorts lower keeps its dial and
 * the other waits for it, so there is always exactly one connection. Connect is a procedure with a deadline
 * across several steps; each step is one transition of the channel's state (INIT, DIALING, CONNECTED) under
 * the channel's lock, written here.
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
        if (!beginDial(wanted, target)) {
            return; // the peer dialed us first
        }

        long deadline = System.nanoTime() + channel.options().connectTimeout().toNanos();
        MemoryAgent.DialResult result;
        try {
            result = channel.transport().agent().dial(target, channel.self(), deadline);
        } catch (TransportException e) {
            dialFailed();
            throw e;
        }

        if (result.socket() != null) {
            TcpConnection started = attachDialed(result.socket(), wanted, target);
            if (started == null) {
                TcpTransport.closeQuietly(result.socket());
                throw leftInit();
            }
            started.start();
            return;
        }

        // crossed dials: the peer sorts lower, its dial to us wins; wait for it to arrive
        awaitCrossedDial(wanted, target, deadline);
    }

    /**
     * Connect, step 1: INIT becomes DIALING toward {@code wanted}; false if the peer
     * dialed us first and the connection is already that peer's (connect then has nothing to do). Refused in
     * any other state.
     */
    boolean beginDial(PeerIdentity wanted, EndpointInfo.Tcp target) throws TransportException {
        channel.lock.lock();
        try {
            switch (channel.phase) {
                case CONNECTED -> {
                    // the peer dialed us first: fine if the control plane names that same peer
                    if (wanted.equals(channel.peer) && channel.remoteEndpoint == null) {
                        channel.remoteEndpoint = target;
                        return false;
                    }
                    throw new TransportException(TransportError.WRONG_STATE,
                            "channel " + channel.id() + " is already connected to " + channel.peer);
                }
                case INIT -> {
                    channel.phase = TcpChannel.Phase.DIALING;
                    channel.dialTarget = wanted;
                    return true;
                }
                default -> throw new TransportException(TransportError.WRONG_STATE,
                        "channel " + channel.id() + " cannot connect in state " + channel.phase);
            }
        } finally {
            channel.lock.unlock();
        }
    }

    /** Connect failed before a connection: a refused connect changes nothing (DIALING back to INIT). */
    void dialFailed() {
        channel.lock.lock();
        try {
            if (channel.phase == TcpChannel.Phase.DIALING) {
                channel.phase = TcpChannel.Phase.INIT;
                channel.dialTarget = null;
            }
            channel.changed.signalAll();
        } finally {
            channel.lock.unlock();
        }
    }

    /**
     * Our dial got through: the socket becomes this channel's connection, not yet started, unless the channel
     * left DIALING meanwhile (then null, and the caller closes the socket).
     */
    TcpConnection attachDialed(SocketChannel socket, PeerIdentity wanted, EndpointInfo.Tcp target) {
        channel.lock.lock();
        try {
            if (channel.phase != TcpChannel.Phase.DIALING) {
                return null;
            }
            TcpConnection started = attachLocked(socket, wanted);
            channel.remoteEndpoint = target;
            return started;
        } finally {
            channel.lock.unlock();
        }
    }

    /** The refusal of a connect that found the channel in another state than it left it in. */
    TransportException leftInit() {
        return new TransportException(TransportError.WRONG_STATE,
                "channel " + channel.id() + " left INIT while connecting (now " + channel.phase + ")");
    }

    /**
     * Crossed dials where the peer sorts lower: its dial to us wins; waits for it to arrive until
     * {@code deadline} ({@link System#nanoTime}).
     */
    void awaitCrossedDial(PeerIdentity wanted, EndpointInfo.Tcp target, long deadline) throws TransportException {
        channel.lock.lock();
        try {
            while (channel.phase == TcpChannel.Phase.DIALING) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    channel.phase = TcpChannel.Phase.INIT;
                    channel.dialTarget = null;
                    throw new TransportException(TransportError.TIMEOUT, "peer " + wanted
                            + " dialed too but its connection did not arrive within " + channel.options().connectTimeout());
                }
                channel.changed.awaitNanos(left);
            }
            if (channel.phase == TcpChannel.Phase.CONNECTED && wanted.equals(channel.peer)) {
                channel.remoteEndpoint = target;
                return;
            }
            throw leftInit();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (channel.phase == TcpChannel.Phase.DIALING) {
                channel.phase = TcpChannel.Phase.INIT;
                channel.dialTarget = null;
            }
            throw new TransportException(TransportError.CONNECT_FAILED, "interrupted while connecting", e);
        } finally {
            channel.lock.unlock();
        }
    }

    /**
     * An authenticated inbound connection from {@code dialer}: decides under the lock whether it becomes this
     * channel's connection. Returns the wire reply; on {@link Wire#REPLY_OK} {@code attached[0]} holds the
     * new, not yet started connection, which the agent starts after sending the reply.
     */
    byte acceptInbound(SocketChannel socket, PeerIdentity dialer, TcpConnection[] attached) {
        channel.lock.lock();
        try {
            switch (channel.phase) {
                case INIT -> {
                    attached[0] = attachLocked(socket, dialer);
                    return Wire.REPLY_OK;
                }
                case DIALING -> {
                    if (!dialer.equals(channel.dialTarget)) {
                        return Wire.REPLY_BUSY;
                    }
                    if (channel.self().compareTo(dialer) < 0) {
                        return Wire.REPLY_CROSSED; // our own dial wins
                    }
                    attached[0] = attachLocked(socket, dialer);
                    channel.changed.signalAll();
                    return Wire.REPLY_OK;
                }
                case CONNECTED -> {
                    // the dials crossed and ours already won: the dialer holds that connection and waits for it
                    return dialer.equals(channel.peer) ? Wire.REPLY_CROSSED : Wire.REPLY_BUSY;
                }
                default -> {
                    return Wire.REPLY_BUSY;
                }
            }
        } finally {
            channel.lock.unlock();
        }
    }

    private TcpConnection attachLocked(SocketChannel socket, PeerIdentity who) {
        TcpConnection c = channel.transport().newConnection(channel, socket, who);
        channel.connection = c;
        channel.peer = who;
        channel.dialTarget = null;
        channel.phase = TcpChannel.Phase.CONNECTED;
        return c;
    }
}
