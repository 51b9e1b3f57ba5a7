package org.objrdma.staging.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An unpooled lease of exactly its size: its own page-aligned arena and registration (local-only, as every
 * staging buffer), made for one consumer that needs one contiguous region larger than the largest size class
 * (an RC PUT session's window) and gone when it is returned. Never reused, so never scrubbed: a fresh
 * allocation is zeroed by the JVM.
 *
 * <p>Release is consume-once (a compare-and-set, a later call is a reported double return) and closes in the
 * staging buffers' order: deregister, then free; a deregistration that fails keeps the memory, since a NIC
 * might still reach it. The byte charge is given back after both.
 */
final class DedicatedLease implements StagingLease {

    private static final Logger LOG = LoggerFactory.getLogger(DedicatedLease.class);

    private final BufferPool pool;
    private final Arena arena;
    private final MemorySegment segment;
    private final MemoryRegion region;
    private final PrincipalId principal;
    private final String holderHint;
    private final Instant borrowedAt;
    private final AtomicBoolean released = new AtomicBoolean();

    private DedicatedLease(BufferPool pool, Arena arena, MemorySegment segment, MemoryRegion region,
                           PrincipalId principal, String holderHint, Instant borrowedAt) {
        this.pool = pool;
        this.arena = arena;
        this.segment = segment;
        this.region = region;
        this.principal = principal;
        this.holderHint = holderHint;
        this.borrowedAt = borrowedAt;
    }

    /**
     * Allocates and registers {@code size} bytes with {@code transport}; on a refusal the memory is freed before
     * the exception leaves. Charging is the caller's ({@link BufferPool#borrowDedicated}).
     */
    static DedicatedLease allocate(BufferPool pool, Transport transport, long size, PrincipalId principal,
                                   String holderHint, Instant now) throws TransportException {
        Arena arena = Arena.ofShared();
        try {
            MemorySegment segment = arena.allocate(size, StagingSettings.PAGE_SIZE);
            MemoryRegion region = transport.register(segment, StagingBuffer.ACCESS);
            return new DedicatedLease(pool, arena, segment, region, principal, holderHint, now);
        } catch (TransportException | RuntimeException | Error e) {
            arena.close();
            throw e;
        }
    }

    @Override
    public long size() {
        return segment.byteSize();
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public MemoryRegion region() {
        return region;
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
        return !released.get();
    }

    @Override
    public boolean release() {
        if (!released.compareAndSet(false, true)) {
            pool.reportDoubleReturn(this);
            return false;
        }
        try {
            if (region.isOpen()) { // the transport may have closed it already, when it went away
                region.close();
            }
            arena.close();
        } catch (RuntimeException e) {
            LOG.error("Closing a dedicated {}-byte staging buffer of {} failed; its memory is kept (a peer might still"
                    + " reach it)", size(), holderHint, e);
        } finally {
            pool.dedicatedReturned(this);
        }
        return true;
    }

    @Override
    public String toString() {
        return "StagingLease[holder=" + holderHint + ", dedicated size=" + size() + ", principal=" + principal
                + ", borrowedAt=" + borrowedAt + (isActive() ? "" : ", released") + "]";
    }
}
