package org.objrdma.s3.rdma;

import java.time.Duration;

/**
 * Bounds of the cuObject-over-RC connections (PID {@code org.objrdma.s3}, properties {@code rdma.rc.*}). The
 * connect and disconnect routes are unsigned (the client library sends no credentials there), so each
 * connection costs a queue pair to anyone who can reach the port: these bounds cap that cost.
 *
 * @param maxConnections   most connections open at once ({@code rdma.rc.max.connections}, 1 .. 65536); past it
 *                         connect answers {@code 503}
 * @param maxPerSource     most connections open at once from one source IP address
 *                         ({@code rdma.rc.max.connections.per.source}, 1 .. maxConnections); past it {@code 503}
 * @param idleTimeout      a connection without a request for this long is ended by the reaper
 *                         ({@code rdma.rc.idle.timeout.ms}, 1 s .. 1 h)
 * @param unboundTimeout   a connection no signed object request has used yet is ended after this long
 *                         ({@code rdma.rc.unbound.timeout.ms}, 1 s .. idleTimeout): what an unsigned connect
 *                         can hold without ever proving a credential
 * @param transferTimeout  how long one chunk's RDMA READ or WRITE may take before the request fails and the
 *                         connection ends ({@code rdma.rc.transfer.timeout.ms}, 100 ms .. 10 min)
 */
public record RcConnectionSettings(int maxConnections, int maxPerSource, Duration idleTimeout,
        Duration unboundTimeout, Duration transferTimeout) {

    /** 1024 in total, 64 per source, 300 s idle, 60 s unbound, 30 s per chunk. */
    public static final RcConnectionSettings DEFAULTS = new RcConnectionSettings(1024, 64, Duration.ofSeconds(300),
            Duration.ofSeconds(60), Duration.ofSeconds(30));

    public RcConnectionSettings {
        if (maxConnections < 1 || maxConnections > 65_536) {
            throw new IllegalArgumentException("rdma.rc.max.connections must be 1 .. 65536, was " + maxConnections);
        }
        if (maxPerSource < 1 || maxPerSource > maxConnections) {
            throw new IllegalArgumentException("rdma.rc.max.connections.per.source must be 1 .. rdma.rc.max.connections ("
                    + maxConnections + "), was " + maxPerSource);
        }
        check("rdma.rc.idle.timeout.ms", idleTimeout, Duration.ofSeconds(1), Duration.ofHours(1));
        check("rdma.rc.unbound.timeout.ms", unboundTimeout, Duration.ofSeconds(1), idleTimeout);
        check("rdma.rc.transfer.timeout.ms", transferTimeout, Duration.ofMillis(100), Duration.ofMinutes(10));
    }

    private static void check(String property, Duration d, Duration min, Duration max) {
        if (d == null || d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new IllegalArgumentException(property + " must be " + min.toMillis() + " .. " + max.toMillis()
                    + " ms, was " + (d == null ? "unset" : d.toMillis()));
        }
    }
}
