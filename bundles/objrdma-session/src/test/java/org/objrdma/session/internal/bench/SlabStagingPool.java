package org.objrdma.session.internal.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.staging.StagingStatus;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.MemoryRegion;

/**
 * Fixed-size slots carved from one registered slab: the cheapest possible pool, so benchmarks and the heap
 * measurement see the session core's cost, not a pool's.
 */
public final class SlabStagingPool implements StagingPool, AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final MemoryRegion slab;
    private final long slotSize;
    private final ConcurrentLinkedQueue<Integer> free = new ConcurrentLinkedQueue<>();

    public SlabStagingPool(org.objrdma.api.transport.Transport transport, int slots, long slotSize) {
        this.slotSize = slotSize;
        try {
            // local-only, as the real pool registers: a PUT session grants its slot to its channel
            this.slab = transport.register(arena.allocate(slots * slotSize, 4096), EnumSet.of(Access.LOCAL_WRITE));
        } catch (org.objrdma.api.transport.TransportException e) {
            throw new IllegalStateException("cannot register the slab with " + transport.name(), e);
        }
        for (int i = 0; i < slots; i++) {
            free.add(i);
        }
    }

    @Override
    public StagingLease borrow(long size, PrincipalId principal, String holderHint) throws StagingException {
        return borrow(size, principal, holderHint, Duration.ZERO);
    }

    @Override
    public StagingLease borrow(long size, PrincipalId principal, String holderHint, Duration maxWait)
            throws StagingException {
        return borrow(size, principal, holderHint, maxWait, null);
    }

    /** One slab on one transport: {@code on} can only be that one. */
    @Override
    public StagingLease borrow(long size, PrincipalId principal, String holderHint, Duration maxWait,
                               org.objrdma.api.transport.Transport on) throws StagingException {
        Integer slot = free.poll();
        if (slot == null) {
            throw new StagingException(StagingStatus.LIMIT, "slab exhausted");
        }
        return new SlotLease(slot, size, principal);
    }

    private final class SlotLease implements StagingLease {
        private final int slot;
        private final long size;
        private final PrincipalId principal;
        private final AtomicBoolean active = new AtomicBoolean(true);

        SlotLease(int slot, long size, PrincipalId principal) {
            this.slot = slot;
            this.size = size;
            this.principal = principal;
        }

        @Override public long size() { return size; }
        @Override public MemorySegment segment() { return slab.segment().asSlice(slot * slotSize, size); }
        @Override public MemoryRegion region() { return slab; }
        @Override public PrincipalId principal() { return principal; }
        @Override public String holderHint() { return ""; }
        @Override public Instant borrowedAt() { return Instant.EPOCH; }
        @Override public boolean isActive() { return active.get(); }

        @Override
        public boolean release() {
            if (active.compareAndSet(true, false)) {
                free.add(slot);
                return true;
            }
            return false;
        }
    }

    @Override
    public long maxBufferSize() {
        return slotSize;
    }

    @Override
    public StagingStats stats() {
        return new StagingStats(0, free.size(), 0, 0, 0, 0, 0, 0, 0, 0, List.of());
    }

    @Override
    public void close() {
        arena.close();
    }
}
