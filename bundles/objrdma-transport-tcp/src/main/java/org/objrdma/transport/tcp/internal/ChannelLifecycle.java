package org.objrdma.transport.tcp.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;

/**
 * A channel's lifecycle procedures, reset and close: each waits for the connection's threads (bounded), so
 * they are procedures across several locked steps on the channel's state, like {@link ChannelDialer}'s
 * connect. Reset cuts, flushes and re-arms the channel (a new epoch); close begins at once and completes in
 * {@link ChannelClosing}.
 */
final class ChannelLifecycle {
    private final TcpChannel channel;
    /** A reset is waiting for the old connection's threads; a second reset waits for it. Guarded by the channel's lock. */
    private boolean resetting;

    ChannelLifecycle(TcpChannel channel) {
        this.channel = channel;
    }

    /**
     * Back to INIT with the same id and key. The phase goes to ERROR first, so nothing new reaches the old
     * connection (sends posted meanwhile are flushed, inbound connections are refused as busy); then the
     * connection is cut and its threads are awaited, which flushes every unfinished request with the reset's
     * cause (the oldest keeps a status it already had from an earlier failure). Waiting for the threads is
     * what makes "no longer touched" true, so the call is refused on one of them, and if they do not stop
     * within {@code shutdown.timeout.ms} the channel stays in ERROR and TIMEOUT is thrown.
     */
    void reset() throws TransportException {
        TcpConnection old;
        List<Batch> earlier = List.of();
        List<Runnable> deliveries = new ArrayList<>();
        channel.lock.lock();
        try {
            while (resetting) {
                channel.changed.awaitUninterruptibly(); // another reset is waiting for the same connection
            }
            switch (channel.phase) {
                case CLOSED -> throw new TransportException(TransportError.CLOSED, "channel " + channel.id() + " is closed");
                case INIT, DIALING -> {
                    return; // nothing to undo: receives posted before connecting stay posted
                }
                default -> {
                    // CONNECTED or ERROR: cut, flush, re-arm
                }
            }
            old = channel.connection;
            if (old != null && old.isOwnThread(Thread.currentThread())) {
                throw new TransportException(TransportError.WRONG_STATE, "channel " + channel.id()
                        + " cannot be reset from its own connection thread (a completion callback): hand it on");
            }
            if (old != null) {
                old.recordCause(EndCause.RESET); // a reader woken by the phase change must not name another
            }
            channel.phase = TcpChannel.Phase.ERROR;
            channel.dialTarget = null;
            if (old == null) {
                // the connection already ended and flushed; anything posted since was flushed at once
                channel.queues.flushAll(EndCause.RESET, deliveries);
                earlier = rearmLocked();
            } else {
                resetting = true;
            }
            channel.changed.signalAll();
        } finally {
            channel.lock.unlock();
        }
        if (old != null) {
            old.abort(EndCause.RESET);
            boolean ended = old.awaitEnded(channel.transport().settings().shutdownTimeout().toNanos());
            channel.lock.lock();
            try {
                resetting = false;
                channel.changed.signalAll();
                if (channel.phase == TcpChannel.Phase.CLOSED) {
                    throw new TransportException(TransportError.CLOSED,
                            "channel " + channel.id() + " was closed while resetting");
                }
                if (!ended) {
                    throw new TransportException(TransportError.TIMEOUT, "channel " + channel.id() + ": the connection to "
                            + old.peer() + " did not stop within " + channel.transport().settings().shutdownTimeout()
                            + "; the channel stays in ERROR");
                }
                earlier = rearmLocked(); // connectionEnded has flushed everything and cleared the connection
            } finally {
                channel.lock.unlock();
            }
        }
        channel.revokeAllGrants(); // a reset channel may next be connected by another peer
        deliveries.forEach(Runnable::run);
        awaitCompletion(earlier);
        TcpTransport.LOG.debug("channel {} reset to INIT", channel.id());
    }

    /** ERROR without a connection → INIT, a new epoch. Returns the batches submitted before it. */
    private List<Batch> rearmLocked() {
        channel.epoch++;
        channel.phase = TcpChannel.Phase.INIT;
        channel.remoteEndpoint = null;
        channel.peer = null;
        channel.dialTarget = null;
        channel.changed.signalAll();
        return List.copyOf(channel.openBatches); // submit adds under the lock: these all precede the reset
    }

    /**
     * A batch whose deadline fired just before the reset was claimed by the timer and completes on it; the
     * flush cannot complete it. Wait (bounded) so that every batch future is complete when reset returns.
     */
    private void awaitCompletion(List<Batch> batches) {
        long deadline = System.nanoTime() + channel.transport().settings().shutdownTimeout().toNanos();
        for (Batch b : batches) {
            long left = deadline - System.nanoTime();
            try {
                b.future().get(Math.max(0, left), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                TcpTransport.LOG.warn("channel {}: a batch of before the reset did not complete within {}", channel.id(),
                        channel.transport().settings().shutdownTimeout());
                return;
            } catch (ExecutionException e) {
                // completed: a batch future only fails when it could not be posted
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Closes in two halves so that a transport closing many channels lets every peer's grace run at once
     * ({@link TcpTransport#close}): {@link #beginClose} never blocks, {@link ChannelClosing#complete} waits, bounded.
     */
    void close() {
        ChannelClosing closing = beginClose();
        if (closing != null) {
            closing.complete(System.nanoTime() + channel.transport().settings().shutdownTimeout().toNanos());
        }
    }

    /**
     * First half of {@link #close}: the channel is CLOSED at once (nothing new is posted, granted or accepted)
     * and its connection begins a graceful end. Never blocks. Null if the channel was closed already.
     */
    ChannelClosing beginClose() {
        TcpConnection c;
        List<Runnable> deliveries = new ArrayList<>();
        channel.lock.lock();
        try {
            if (channel.phase == TcpChannel.Phase.CLOSED) {
                return null;
            }
            channel.phase = TcpChannel.Phase.CLOSED;
            channel.dialTarget = null;
            channel.changed.signalAll();
            c = channel.connection;
            if (c == null) {
                channel.queues.flushAll(EndCause.LOCAL_CLOSE, deliveries);
            }
        } finally {
            channel.lock.unlock();
        }
        if (c != null) {
            c.beginFinish(EndCause.LOCAL_CLOSE);
        }
        return new ChannelClosing(channel, c, deliveries);
    }
}
