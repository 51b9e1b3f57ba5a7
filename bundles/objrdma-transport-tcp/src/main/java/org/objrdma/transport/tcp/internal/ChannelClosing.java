package org.objrdma.transport.tcp.internal;

import java.util.List;

/**
 * A close begun by {@link ChannelLifecycle#beginClose}: the connection finishing (or null) and what to deliver
 * after it. The second half of a close, which waits (bounded); a transport closing many channels begins every
 * close first and then completes them, so every peer's grace runs at once.
 */
final class ChannelClosing {
    private final TcpChannel channel;
    private final TcpConnection connection;
    private final List<Runnable> deliveries;

    ChannelClosing(TcpChannel channel, TcpConnection connection, List<Runnable> deliveries) {
        this.channel = channel;
        this.connection = connection;
        this.deliveries = deliveries;
    }

    /**
     * Waits (never past {@code deadline}, a {@link System#nanoTime} value) for the peer's hang-up, at most
     * the finish grace; then cuts the socket, waits for the connection's threads to stop and joins them —
     * so a flushed completion means "no longer touched" — unless called on one of them. Threads that do not
     * stop in time are logged and the work is flushed anyway. Then the grants are revoked and the flushed
     * completions delivered.
     */
    void complete(long deadline) {
        TcpConnection c = connection;
        if (c != null) {
            c.finishBy(deadline);
            if (!c.isOwnThread(Thread.currentThread())) {
                boolean stopped = c.awaitEnded(Math.max(0, deadline - System.nanoTime()))
                        && c.joinThreads(deadline);
                if (!stopped) {
                    TcpTransport.LOG.warn("channel {}: connection threads did not stop within {}; flushing "
                            + "anyway", channel.id(), channel.transport().settings().shutdownTimeout());
                    channel.connectionEnded(c, EndCause.LOCAL_CLOSE);
                }
            }
        }
        channel.revokeAllGrants();
        deliveries.forEach(Runnable::run);
        channel.transport().channelClosed(channel);
    }
}
