package org.objrdma.transport.tcp.internal;

import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * What the reader owes the peer and the writer has not sent yet (acknowledgements, READ responses), bounded by
 * {@code writer.queue.frames} / {@code writer.queue.bytes}: the back-pressure that keeps a peer that asks
 * faster than it reads from filling our memory. Its own class because it is the one place the reader and the
 * writer meet besides the outbox: the reader waits here, the writer releases it.
 */
final class PeerBacklog {
    private final TcpConnection connection;
    /** Frames and wire bytes the reader queued for the peer not yet sent. */
    private final AtomicInteger owedFrames = new AtomicInteger();
    private final AtomicLong owedBytes = new AtomicLong();
    private volatile int owedFramesHighWater;
    /** The reader is parked waiting for the writer queue to drain. */
    private volatile boolean readerBackPressured;

    PeerBacklog(TcpConnection connection) {
        this.connection = connection;
    }

    /**
     * Queues a frame the reader owes the peer, after waiting for room in the writer queue
     * ({@code writer.queue.frames}, {@code writer.queue.bytes}; one frame is always admitted into an empty
     * queue). While it waits the reader reads nothing more, so a peer that floods requests meets TCP's own
     * back-pressure. If the writer then makes no progress for {@code keepalive.timeout.ms} — the peer sends but
     * never reads — the connection is cut and the peer named in the log.
     */
    void owePeer(Outbound item, long bytes) throws ClosedChannelException {
        PeerLimits limits = connection.transport().settings().limits();
        if (!hasRoom(limits, bytes)) {
            long waitStart = System.nanoTime();
            long stall = connection.transport().settings().keepaliveTimeout().toNanos();
            Keepalive keepalive = connection.keepalive();
            keepalive.beginLocalWait(); // our writer's backlog, not the peer's silence
            try {
                while (!hasRoom(limits, bytes)) {
                    long now = System.nanoTime();
                    if (now - Math.max(waitStart, keepalive.lastSent()) > stall) {
                        TcpTransport.LOG.warn("channel {}: peer {} (connected from {}) does not read what it asked "
                                        + "for: {} frames / {} bytes queued for it, no progress for {} ms; cutting the "
                                        + "connection", connection.channel().id(), connection.peer(), socketPeer(),
                                owedFrames.get(), owedBytes.get(), TimeUnit.NANOSECONDS.toMillis(stall));
                        connection.abort(EndCause.PEER_NOT_READING);
                        throw new ClosedChannelException();
                    }
                    if (connection.isEnding()) {
                        throw new ClosedChannelException();
                    }
                    readerBackPressured = true;
                    LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(1));
                    readerBackPressured = false;
                }
            } finally {
                keepalive.endLocalWait();
            }
        }
        int frames = owedFrames.incrementAndGet();
        owedBytes.addAndGet(bytes);
        if (frames > owedFramesHighWater) {
            owedFramesHighWater = frames;
            connection.transport().noteOwedFrames(frames);
        }
        connection.writer().enqueue(item);
    }

    /** The socket's remote address: where the bytes really come from, whatever the peer claimed. */
    private Object socketPeer() {
        try {
            return connection.socket().getRemoteAddress();
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    private boolean hasRoom(PeerLimits limits, long bytes) {
        int frames = owedFrames.get();
        return frames == 0 || (frames < limits.writerQueueFrames() && owedBytes.get() + bytes <= limits.writerQueueBytes());
    }

    /** Writer: a frame the reader queued has gone out (or was dropped). */
    void settle(long bytes) {
        owedFrames.decrementAndGet();
        owedBytes.addAndGet(-bytes);
        if (readerBackPressured) {
            LockSupport.unpark(connection.readerThread());
        }
    }

    /** Most frames queued for the peer at once so far; for tests. */
    int owedFramesHighWater() {
        return owedFramesHighWater;
    }
}
