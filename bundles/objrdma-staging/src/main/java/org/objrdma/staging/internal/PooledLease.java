package org.objrdma.staging.internal;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Instant;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.transport.MemoryRegion;

/**
 * A consume-once loan of one {@link StagingBuffer}. The first {@link #release()} wins a compare-and-set
 * and hands the buffer back; any later call loses it, is reported by the pool and changes nothing else.
 */
final class PooledLease implements StagingLease {

    private static final VarHandle RELEASED;
    private static final VarHandle OVERDUE_REPORTED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            RELEASED = lookup.findVarHandle(PooledLease.class, "released", boolean.class);
            OVERDUE_REPORTED = lookup.findVarHandle(PooledLease.class, "overdueReported", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final BufferPool pool;
    private final StagingBuffer buffer;
    private final long size;
    private final MemorySegment segment;
    private final PrincipalId principal;
    private final String holderHint;
    private final Instant borrowedAt;
    /** Where the lease was borrowed, only when stack tracking is on. */
    private final Throwable borrowSite;
    @SuppressWarnings("unused") // through RELEASED
    private volatile boolean released;
    @SuppressWarnings("unused") // through OVERDUE_REPORTED
    private volatile boolean overdueReported;

    PooledLease(BufferPool pool, StagingBuffer buffer, long size, PrincipalId principal, String holderHint,
                Instant borrowedAt, Throwable borrowSite) {
        this.pool = pool;
        this.buffer = buffer;
        this.size = size;
        this.segment = buffer.segment().asSlice(0, size);
        this.principal = principal;
        this.holderHint = holderHint;
        this.borrowedAt = borrowedAt;
        this.borrowSite = borrowSite;
    }

    @Override
    public long size() {
        return size;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public MemoryRegion region() {
        return buffer.region();
    }

    @Override
    public PrincipalId principal() {
        return principal;
    }

    @Override
    public String holderHint() {
        return holderHint;
    }

    @Override
    public Instant borrowedAt() {
        return borrowedAt;
    }

    @Override
    public boolean isActive() {
        return !released;
    }

    @Override
    public boolean release() {
        if (!RELEASED.compareAndSet(this, false, true)) {
            pool.reportDoubleReturn(this);
            return false;
        }
        pool.giveBack(this);
        return true;
    }

    StagingBuffer buffer() {
        return buffer;
    }

    /** Bytes charged to the limits: the whole size class. */
    long chargedBytes() {
        return buffer.size();
    }

    Throwable borrowSite() {
        return borrowSite;
    }

    /** True exactly once: the overdue report is made by whoever wins this. */
    boolean claimOverdueReport() {
        return OVERDUE_REPORTED.compareAndSet(this, false, true);
    }

    @Override
    public String toString() {
        return "StagingLease[holder=" + holderHint + ", size=" + size + ", class=" + buffer.size()
                + ", principal=" + principal + ", borrowedAt=" + borrowedAt + (isActive() ? "" : ", released") + "]";
    }
}
