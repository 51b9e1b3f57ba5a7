package org.objrdma.staging.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One page-aligned off-heap buffer of a size class and its registration with one transport. The pool is
 * the only owner; borrowers see it through a {@link PooledLease}.
 *
 * <p>Each buffer has its own shared arena so that it can be freed on its own. {@link #close()} deregisters
 * first and frees second (a NIC must never be left able to write into freed memory), and does both at most
 * once whoever calls it.
 */
final class StagingBuffer {

    private static final Logger LOG = LoggerFactory.getLogger(StagingBuffer.class);

    /**
     * What a staging buffer's registration allows: local access only. No peer reaches a buffer through its
     * registration (its own rkey opens nothing remotely), so a long-lived registration can be re-lent cheaply; a
     * session hands its peer a grant of exactly its slice, on its channel, and revokes it before the lease returns.
     */
    static final Set<Access> ACCESS = EnumSet.of(Access.LOCAL_WRITE);

    private final int classIndex;
    private final Arena arena;
    private final MemorySegment segment;
    private final MemoryRegion region;
    /** The binding the registration belongs to; the buffer is stale once that transport went away. */
    private final TransportBinding binding;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The lease out on this buffer, or null while idle; read by the overdue check and at shutdown. */
    private volatile PooledLease currentLease;

    private StagingBuffer(int classIndex, Arena arena, MemorySegment segment, MemoryRegion region,
                          TransportBinding binding) {
        this.classIndex = classIndex;
        this.arena = arena;
        this.segment = segment;
        this.region = region;
        this.binding = binding;
    }

    /**
     * Allocates {@code size} bytes aligned to a page and registers them with the binding's transport. If
     * the registration is refused the memory is freed before the exception leaves.
     */
    static StagingBuffer allocate(int classIndex, long size, TransportBinding binding) throws TransportException {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment segment = arena.allocate(size, StagingSettings.PAGE_SIZE);
            MemoryRegion region = binding.transport().register(segment, ACCESS);
            return new StagingBuffer(classIndex, arena, segment, region, binding);
        } catch (TransportException | RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    int classIndex() {
        return classIndex;
    }

    long size() {
        return segment.byteSize();
    }

    MemorySegment segment() {
        return segment;
    }

    MemoryRegion region() {
        return region;
    }

    TransportBinding binding() {
        return binding;
    }

    /** Its Commons Pool key: its class of its binding. */
    TransportBinding.Key key() {
        return binding.key(classIndex);
    }

    PooledLease currentLease() {
        return currentLease;
    }

    void lentAs(PooledLease lease) {
        currentLease = lease;
    }

    void returned() {
        currentLease = null;
    }

    boolean isClosed() {
        return closed.get();
    }

    /** Deregisters, then frees. Idempotent; never throws. */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            if (region.isOpen()) { // the transport may have closed it already, when it went away
                region.close();
            }
        } catch (RuntimeException e) {
            // the contract says close never throws; if one does, still free nothing we cannot prove unreachable
            LOG.error("Deregistering a {}-byte staging buffer from transport {} failed; its memory is kept "
                    + "(a peer might still reach it)", size(), binding.transport().name(), e);
            return;
        }
        try {
            arena.close();
        } catch (IllegalStateException e) {
            // a native call still holds the segment (e.g. a transport copying from it); leak rather than crash
            LOG.error("A {}-byte staging buffer is still in use by a native call; its memory is not freed",
                    size(), e);
        }
    }
}
