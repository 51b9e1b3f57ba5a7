package org.objrdma.transport.tcp.internal;

/**
 * Bounds on everything a peer can make this transport hold: validated at activation like the rest of
 * {@link TcpSettings}, each named after its property.
 *
 * @param maxGrantsPerChannel           grants one channel may hold ({@code max.grants.per.channel})
 * @param writerQueueFrames             frames a connection queues for a peer before it stops reading from that
 *                                      peer ({@code writer.queue.frames})
 * @param writerQueueBytes              wire bytes (headers and READ payloads) queued likewise
 *                                      ({@code writer.queue.bytes})
 * @param maxPendingHandshakes          inbound sockets not yet authenticated, in total
 *                                      ({@code max.pending.handshakes})
 * @param maxPendingHandshakesPerSource the same from one source address ({@code max.pending.handshakes.per.address})
 * @param maxConnections                inbound sockets held at once, authenticated or not ({@code max.connections})
 */
public record PeerLimits(int maxGrantsPerChannel, int writerQueueFrames, long writerQueueBytes,
                         int maxPendingHandshakes, int maxPendingHandshakesPerSource, int maxConnections) {

    /** The metatype defaults. */
    public static final PeerLimits DEFAULTS = new PeerLimits(4096, 8192, 64L * 1024 * 1024, 256, 32, 1024);

    public PeerLimits {
        require(maxGrantsPerChannel >= 1, "max.grants.per.channel", maxGrantsPerChannel, "must be at least 1");
        require(writerQueueFrames >= 16, "writer.queue.frames", writerQueueFrames, "must be at least 16");
        require(writerQueueBytes >= 4096, "writer.queue.bytes", writerQueueBytes, "must be at least 4096");
        require(maxPendingHandshakes >= 1, "max.pending.handshakes", maxPendingHandshakes, "must be at least 1");
        require(maxPendingHandshakesPerSource >= 1 && maxPendingHandshakesPerSource <= maxPendingHandshakes,
                "max.pending.handshakes.per.address", maxPendingHandshakesPerSource,
                "must be 1..max.pending.handshakes (" + maxPendingHandshakes + ")");
        require(maxConnections >= maxPendingHandshakes, "max.connections", maxConnections,
                "must be at least max.pending.handshakes (" + maxPendingHandshakes + ")");
    }

    private static void require(boolean ok, String name, Object value, String rule) {
        if (!ok) {
            throw new IllegalArgumentException(name + " " + rule + ", was " + value);
        }
    }
}
