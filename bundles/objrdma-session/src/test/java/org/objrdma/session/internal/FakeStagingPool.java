package org.objrdma.session.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.staging.StagingStatus;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportException;

/**
 * A staging pool for unit tests: registered native buffers recycled per exact size, an optional
 * outstanding-lease limit, and counters that let tests prove every lease came back exactly once.
 */
final class FakeStagingPool implements StagingPool {
    private final Transport transport;
    private final long maxBufferSize;
    private final Arena arena = Arena.ofShared();
    private final Map<Long, Queue<MemoryRegion>> free = new ConcurrentHashMap<>();
    final AtomicInteger outstanding = new AtomicInteger();
    final AtomicLong borrows = new AtomicLong();
    final AtomicLong returns = new AtomicLong();
    final AtomicLong doubleReturns = new AtomicLong();
    volatile int maxOutstanding = Integer.MAX_VALUE;
    volatile StagingStatus failWith;

    FakeStagingPool(Transport transport, long maxBufferSize) {
        this.transport = transport;
        this.maxBufferSize = maxBufferSize;
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

    /** Registers with {@code on} when given (as the real pool does), else with this pool's transport. */
    @Override
    public StagingLease borrow(long size, PrincipalId principal, String holderHint, Duration maxWait, Transport on)
            throws StagingException {
        Transport registerWith = on == null ? transport : on;
        if (failWith != null) {
            throw new StagingException(failWith, "scripted failure");
        }
        if (size < 1 || size > maxBufferSize) {
            throw new StagingException(StagingStatus.INVALID_SIZE, "size " + size);
        }
        if (outstanding.incrementAndGet() > maxOutstanding) {
            outstanding.decrementAndGet();
            throw new StagingException(StagingStatus.LIMIT, "outstanding leases");
        }
        MemoryRegion region = free.computeIfAbsent(size, k -> new ConcurrentLinkedQueue<>()).poll();
        if (region != null && !region.transportName().equals(registerWith.name())) {
            free.get(size).add(region);
            region = null;
        }
        if (region == null) {
            MemorySegment segment = arena.allocate(size, 4096);
            try {
                region = registerWith.register(segment, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            } catch (TransportException e) {
                outstanding.decrementAndGet();
                throw new StagingException(StagingStatus.REGISTRATION_FAILED, e.getMessage(), e);
            }
        }
        borrows.incrementAndGet();
        return new Lease(region, size, principal, holderHint);
    }

    private final class Lease implements StagingLease {
        private final MemoryRegion region;
        private final long size;
        private final PrincipalId principal;
        private final String holder;
        private final AtomicBoolean active = new AtomicBoolean(true);

        Lease(MemoryRegion region, long size, PrincipalId principal, String holder) {
            this.region = region;
            this.size = size;
            this.principal = principal;
            this.holder = holder;
        }

        @Override public long size() { return size; }
        @Override public MemorySegment segment() { return region.segment().asSlice(0, size); }
        @Override public MemoryRegion region() { return region; }
        @Override public PrincipalId principal() { return principal; }
        @Override public String holderHint() { return holder; }
        @Override public Instant borrowedAt() { return Instant.EPOCH; }
        @Override public boolean isActive() { return active.get(); }

        @Override
        public boolean release() {
            if (!active.compareAndSet(true, false)) {
                doubleReturns.incrementAndGet();
                return false;
            }
            returns.incrementAndGet();
            outstanding.decrementAndGet();
            free.get(size).add(region);
            return true;
        }
    }

    @Override
    public long maxBufferSize() {
        return maxBufferSize;
    }

    @Override
    public StagingStats stats() {
        return new StagingStats(outstanding.get(), 0, 0, 0, borrows.get(), 0, 0, 0, doubleReturns.get(), 0, List.of());
    }

    void close() {
        arena.close();
    }
}
