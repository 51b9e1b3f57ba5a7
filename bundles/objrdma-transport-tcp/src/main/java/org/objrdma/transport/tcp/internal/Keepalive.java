package org.objrdma.transport.tcp.internal;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A connection's liveness: when bytes last came in and went out, a ping when we have been silent for
 * {@code keepalive.interval.ms}, and the cut when the peer has been silent for {@code keepalive.timeout.ms} —
 * unless the silence is ours (the reader waits for a local receive or for our own writer's backlog), or, after
 * a refusal, when the peer never hangs up. Its own class because the reader, the writer and the transport's
 * timer all touch it, and the rule "whose silence is it" should be read in one place.
 */
final class Keepalive {
    private final TcpConnection connection;
    private final AtomicBoolean pingQueued = new AtomicBoolean();
    private volatile long lastReceived = System.nanoTime();
    private volatile long lastSent = System.nanoTime();
    /** The reader waits for something local: the peer's silence is not its fault then. */
    private volatile boolean waitingLocally;

    Keepalive(TcpConnection connection) {
        this.connection = connection;
    }

    /** Both clocks start now (the threads start). */
    void restart() {
        lastReceived = System.nanoTime();
        lastSent = lastReceived;
    }

    void received() {
        lastReceived = System.nanoTime();
    }

    void sent() {
        lastSent = System.nanoTime();
    }

    long lastSent() {
        return lastSent;
    }

    /** The reader starts waiting for something of ours (a posted receive, room in our writer's queue). */
    void beginLocalWait() {
        waitingLocally = true;
    }

    /** ... and stops: the wait was ours, so the peer's silence is counted from now. */
    void endLocalWait() {
        lastReceived = System.nanoTime();
        waitingLocally = false;
    }

    /** The writer took the queued ping; the next tick may queue another. */
    void pingTaken() {
        pingQueued.set(false);
    }

    /** Called by the transport's timer. */
    void tick(long now) {
        var s = connection.transport().settings();
        if (connection.isRefusing()) {
            if (now - connection.refusingSince() > s.keepaliveTimeout().toNanos()) {
                connection.abort(EndCause.REFUSED_PEER); // the peer never hung up after our refusal
            }
            return;
        }
        if (now - lastSent >= s.keepaliveInterval().toNanos() && pingQueued.compareAndSet(false, true)) {
            connection.writer().enqueue(Outbound.PING);
        }
        if (!waitingLocally && now - lastReceived > s.keepaliveTimeout().toNanos()) {
            TcpTransport.LOG.info("channel {}: nothing from {} for {} ms, declaring it gone", connection.channel().id(),
                    connection.peer(), TimeUnit.NANOSECONDS.toMillis(now - lastReceived));
            connection.abort(EndCause.KEEPALIVE_TIMEOUT);
        }
    }
}
