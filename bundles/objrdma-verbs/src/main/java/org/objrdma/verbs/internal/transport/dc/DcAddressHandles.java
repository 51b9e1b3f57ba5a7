package org.objrdma.verbs.internal.transport.dc;

import java.lang.foreign.MemorySegment;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.objrdma.verbs.internal.ffi.Mlx5DvLibrary;
import org.objrdma.verbs.internal.ffi.VerbsException;

/**
 * Address handles of DC peers, one per peer port, created on first use and kept for the next request to the same
 * client. At most {@code capacity} are kept: when a new peer needs room, the least recently used handle no request
 * holds is destroyed; when every handle is held, the new one is made for the request alone and destroyed on release.
 * {@link #close()} destroys them all (callers have released theirs first).
 *
 * <p>Thread safety: every method is synchronized; the verbs are cheap control-path calls.
 */
final class DcAddressHandles implements AutoCloseable {

    private static final class Entry {
        final MemorySegment ah;
        int holders;
        boolean cached;

        Entry(MemorySegment ah, boolean cached) {
            this.ah = ah;
            this.cached = cached;
        }
    }

    /** A held handle; {@link DcAddressHandles#release} gives it back. */
    record Lease(DcPeer peer, MemorySegment ah, Object entry) {
    }

    private final Mlx5DvLibrary mlx5;
    private final MemorySegment pd;
    private final DcPort port;
    private final int capacity;
    private final LinkedHashMap<DcPeer, Entry> cache = new LinkedHashMap<>(16, 0.75f, true);
    private int live;
    private boolean closed;

    DcAddressHandles(Mlx5DvLibrary mlx5, MemorySegment pd, DcPort port, int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1, was " + capacity);
        }
        this.mlx5 = mlx5;
        this.pd = pd;
        this.port = port;
        this.capacity = capacity;
    }

    /** The handle towards {@code peer}, created if needed. */
    synchronized Lease acquire(DcPeer peer) throws VerbsException {
        if (closed) {
            throw new IllegalStateException("the DC initiator is closed");
        }
        Entry e = cache.get(peer);
        if (e == null) {
            boolean room = cache.size() < capacity || evictOneIdle();
            MemorySegment ah = mlx5.createAh(pd, new Mlx5DvLibrary.AddressVector(port.port(), peer.lid(),
                    peer.global(), peer.gid(), port.sgidIndex()));
            live++;
            e = new Entry(ah, room);
            if (room) {
                cache.put(peer, e);
            }
        }
        e.holders++;
        return new Lease(peer, e.ah, e);
    }

    private boolean evictOneIdle() {
        for (Iterator<Map.Entry<DcPeer, Entry>> it = cache.entrySet().iterator(); it.hasNext(); ) {
            Entry e = it.next().getValue();
            if (e.holders == 0) {
                it.remove();
                destroy(e);
                return true;
            }
        }
        return false;
    }

    synchronized void release(Lease lease) {
        Entry e = (Entry) lease.entry();
        e.holders--;
        if (e.holders == 0 && (!e.cached || closed)) {
            destroy(e);
        }
    }

    /** Forgets the handle towards {@code peer} (a client went away); destroyed now unless a request holds it. */
    synchronized void forget(DcPeer peer) {
        Entry e = cache.remove(peer);
        if (e != null) {
            e.cached = false;
            if (e.holders == 0) {
                destroy(e);
            }
        }
    }

    private void destroy(Entry e) {
        mlx5.destroyAh(e.ah);
        live--;
    }

    /** Address handles that exist now (cached and per-request). */
    synchronized int live() {
        return live;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Entry e : cache.values()) {
            e.cached = false;
            if (e.holders == 0) {
                destroy(e);
            }
        }
        cache.clear();
    }
}
