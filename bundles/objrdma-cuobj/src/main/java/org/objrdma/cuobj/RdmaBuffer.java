package org.objrdma.cuobj;

import org.objrdma.transport.common.Closer;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportException;

/**
 * {@code struct rdma_buffer*}: an opaque handle to server memory registered with {@link CuObjServer#registerBuffer}
 * (one entry or up to ten scatter-gather entries), or a view over one made by
 * {@link CuObjServer#getRDMABufferFromSgList}.
 *
 * <p>The handle owns the registrations, not the memory. A registered buffer follows the server's transport: if
 * the bound transport is replaced (an OSGi service swap), the memory is registered with the new one at its next
 * transfer and the old registration closed. {@code deRegisterBuffer} ends a registered buffer and, with it, every
 * view over it; {@code putRDMABufferFromSgList} ends a view. Transfers on an ended handle fail with {@code -EIO}.
 */
public final class RdmaBuffer {
    /** Registered memory with a transport, replaced as a whole when the transport changes. */
    private record Registration(Transport transport, MemoryRegion[] regions) {
    }

    final CuObjServer owner;
    private final MemorySegment[] segments;        // registered buffer: its entries; view: null
    private final RdmaBuffer base;                 // view: the buffer it looks into; registered: null
    private final long[] offsets;                  // per entry: registered 0; view: offset into the base
    private final long[] lengths;                  // per entry
    private final long size;
    private Registration registration;             // guarded by this
    private volatile boolean ended;

    private RdmaBuffer(CuObjServer owner, MemorySegment[] segments, RdmaBuffer base, long[] offsets, long[] lengths) {
        this.owner = owner;
        this.segments = segments;
        this.base = base;
        this.offsets = offsets;
        this.lengths = lengths;
        long total = 0;
        for (long l : lengths) {
            total += l;
        }
        this.size = total;
    }

    /** Registers every segment with {@code transport}; closes what it registered if one fails. */
    static RdmaBuffer register(CuObjServer owner, Transport transport, MemorySegment[] segments)
            throws TransportException {
        long[] offsets = new long[segments.length];
        long[] lengths = new long[segments.length];
        for (int i = 0; i < segments.length; i++) {
            lengths[i] = segments[i].byteSize();
        }
        RdmaBuffer b = new RdmaBuffer(owner, segments, null, offsets, lengths);
        synchronized (b) {
            b.registration = new Registration(transport, registerAll(transport, segments));
        }
        return b;
    }

    static RdmaBuffer view(RdmaBuffer base, long[] offsets, long[] lengths) {
        return new RdmaBuffer(base.owner, null, base, offsets, lengths);
    }

    private static MemoryRegion[] registerAll(Transport transport, MemorySegment[] segments) throws TransportException {
        MemoryRegion[] regions = new MemoryRegion[segments.length];
        try {
            for (int i = 0; i < segments.length; i++) {
                // the server's memory is only ever a local source (GET) or destination (PUT): no remote access
                regions[i] = transport.register(segments[i], EnumSet.of(Access.LOCAL_WRITE));
            }
            return regions;
        } catch (TransportException | RuntimeException e) {
            Closer.closeAllQuietly(e::addSuppressed, regions);
            throw e;
        }
    }

    /** Total bytes: the sum of the entries. */
    public long size() {
        return size;
    }

    /** Number of entries: registered scatter-gather entries, or view entries. */
    public int entryCount() {
        return lengths.length;
    }

    /** True for a view made by {@code getRDMABufferFromSgList}. */
    public boolean isView() {
        return base != null;
    }

    /** True until deregistered (a view: until put back, or its base deregistered). */
    public boolean isActive() {
        return !ended && (base == null || base.isActive());
    }

    /** The base of a view, or null. */
    RdmaBuffer base() {
        return base;
    }

    /**
     * The local scatter-gather list of {@code length} bytes starting {@code offset} bytes into this buffer
     * (0 unless the buffer has one entry), registering with {@code transport} first if the buffer was
     * registered with another one.
     *
     * @throws TransportException if re-registering fails
     * @throws IllegalStateException if the buffer ended meanwhile
     */
    List<ScatterGatherEntry> sgList(Transport transport, long offset, long length) throws TransportException {
        MemoryRegion[] regions = base == null ? regionsFor(transport) : base.regionsFor(transport);
        List<ScatterGatherEntry> list = new ArrayList<>(Math.min(lengths.length, 4));
        long skip = offset;
        long left = length;
        for (int i = 0; i < lengths.length && left > 0; i++) {
            if (skip >= lengths[i]) {
                skip -= lengths[i];
                continue;
            }
            long take = Math.min(lengths[i] - skip, left);
            MemoryRegion region = base == null ? regions[i] : regions[0];
            list.add(new ScatterGatherEntry(region, offsets[i] + skip, Math.toIntExact(take)));
            left -= take;
            skip = 0;
        }
        return list;
    }

    private synchronized MemoryRegion[] regionsFor(Transport transport) throws TransportException {
        if (ended) {
            throw new IllegalStateException("the buffer was deregistered");
        }
        Registration r = registration;
        if (r.transport != transport) {
            // the bound transport was replaced: register with the new one, drop the old registration
            MemoryRegion[] fresh = registerAll(transport, segments);
            registration = new Registration(transport, fresh); // first: a failing close must not orphan it
            Closer.closeAll(r.regions);
            return fresh;
        }
        return r.regions;
    }

    /** Deregisters (registered buffer) or ends (view). Idempotent; returns false if it had already ended. */
    boolean end() {
        synchronized (this) {
            if (ended) {
                return false;
            }
            ended = true;
            if (registration != null) {
                Closer.closeAll(registration.regions);
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return "RdmaBuffer[" + (base == null ? "registered" : "view") + ", " + lengths.length + " entr"
                + (lengths.length == 1 ? "y" : "ies") + ", " + size + " bytes" + (isActive() ? "" : ", ended") + "]";
    }
}
