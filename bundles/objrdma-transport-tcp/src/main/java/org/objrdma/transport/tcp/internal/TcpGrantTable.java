package org.objrdma.transport.tcp.internal;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;

/**
 * One channel's grant table: the only place its connection resolves an odd rkey, so a grant is reachable
 * through this channel alone. Grant rkeys are odd and region rkeys even (see {@link TcpTransport#register}),
 * so a grant can never be mistaken for a region of the deprecated whole-region path or the other way round.
 * Its own class because rkey numbering and opaque bases are one concept, apart from the channel's states
 * (which decide only whether a grant may be made now).
 */
final class TcpGrantTable {
    /** Opaque grant bases: page-aligned, below 2^62 (base + any slice length stays far from wrapping). */
    private static final long OPAQUE_BASE_MASK = 0x3FFF_FFFF_FFFF_F000L;
    /** ... and never in the first 4 GiB, so a small forged address is never inside one. */
    private static final long OPAQUE_BASE_FLOOR = 0x1_0000_0000L;

    private final TcpChannel channel;
    private final TcpTransport transport;
    private final Map<Integer, TcpGrant> grants = new ConcurrentHashMap<>();
    /** Next grant number; rkeys of revoked grants do not come back until it wraps. Guarded by the channel's lock. */
    private int nextGrant;

    TcpGrantTable(TcpChannel channel, TcpTransport transport) {
        this.channel = channel;
        this.transport = transport;
        this.nextGrant = transport.random().nextInt();
    }

    /**
     * A new grant of {@code [offset, offset + length)} of {@code r} (arguments checked already); with
     * {@code opaque} its address is a random page-aligned base below 2^62 instead of the slice's own. Called
     * with the channel's lock held, in a state that allows granting.
     */
    TcpGrant create(TcpRegion r, long offset, long length, Set<Access> access, boolean opaque)
            throws TransportException {
        if (!r.isOpen()) {
            throw new TransportException(TransportError.CLOSED, "region " + r + " is closed");
        }
        int max = transport.settings().limits().maxGrantsPerChannel();
        if (grants.size() >= max) {
            throw new TransportException(TransportError.RESOURCE_EXHAUSTED, "channel " + channel.id() + " holds "
                    + "max.grants.per.channel (" + max + ") grants");
        }
        int rkey;
        do {
            rkey = (nextGrant++ << 1) | 1;
        } while (grants.containsKey(rkey));
        long real = r.address() + offset;
        long base = real;
        while (opaque && base == real) {
            base = (transport.random().nextLong() & OPAQUE_BASE_MASK) | OPAQUE_BASE_FLOOR;
        }
        TcpGrant g = new TcpGrant(channel, r, offset, length, access, rkey, base);
        grants.put(rkey, g);
        return g;
    }

    /** The live grant with {@code rkey}, or null. Reader thread. */
    TcpGrant byRkey(int rkey) {
        return grants.get(rkey);
    }

    /** Called by {@link TcpGrant#revoke()} once, as soon as the grant refuses new leases. */
    void forget(TcpGrant grant) {
        grants.remove(grant.rkey(), grant);
    }

    int size() {
        return grants.size();
    }

    /** Revokes every grant; called once the connection's threads are gone (reset, close). */
    void revokeAll() {
        for (TcpGrant g : List.copyOf(grants.values())) {
            g.revoke();
        }
    }
}
