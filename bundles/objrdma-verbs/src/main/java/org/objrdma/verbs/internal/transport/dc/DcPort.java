package org.objrdma.verbs.internal.transport.dc;

/**
 * The local port DC queue pairs of one device use: its number, the path MTU, and whether traffic is routed by GID
 * (RoCE always; InfiniBand only across subnets) from GID table entry {@code sgidIndex}.
 *
 * @param port      port number, 1..255
 * @param pathMtu   {@code enum ibv_mtu} code, 1 (256) .. 5 (4096)
 * @param global    true on a RoCE port: every address handle and DC QP carries a GRH
 * @param sgidIndex the source GID index when {@code global}, 0..255
 */
public record DcPort(int port, int pathMtu, boolean global, int sgidIndex) {
    public DcPort {
        if (port < 1 || port > 255) {
            throw new IllegalArgumentException("port must be 1..255, was " + port);
        }
        if (pathMtu < 1 || pathMtu > 5) {
            throw new IllegalArgumentException("path MTU code must be 1..5, was " + pathMtu);
        }
        if (sgidIndex < 0 || sgidIndex > 255) {
            throw new IllegalArgumentException("GID index must be 0..255, was " + sgidIndex);
        }
    }
}
