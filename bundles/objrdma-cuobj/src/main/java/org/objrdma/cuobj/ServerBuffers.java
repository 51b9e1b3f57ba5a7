package org.objrdma.cuobj;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportException;
import org.objrdma.cuobj.internal.TelemetryLog;
import org.objrdma.transport.common.Closer;

/**
 * The memory a {@link CuObjServer} owns: host buffers it allocated, buffers it registered and views over them.
 * Registration refusals return null and write an ERROR telemetry line (C returns {@code nullptr}). Package-private
 * because it reaches {@link RdmaBuffer}'s owner and registration, which the API does not expose.
 */
final class ServerBuffers {
    private final CuObjServer owner;
    private final Supplier<Transport> transport;
    private final TelemetryLog log;
    private final Set<RdmaBuffer> buffers = ConcurrentHashMap.newKeySet();
    private final Map<Long, Arena> hostBuffers = new ConcurrentHashMap<>();
    private volatile boolean closed;

    ServerBuffers(CuObjServer owner, Supplier<Transport> transport, TelemetryLog log) {
        this.owner = owner;
        this.transport = transport;
        this.log = log;
    }

    MemorySegment allocHost(long size) {
        if (size <= 0 || closed) {
            return null;
        }
        Arena arena = Arena.ofShared();
        try {
            MemorySegment s = arena.allocate(size, CuObj.HOST_BUFFER_ALIGNMENT);
            hostBuffers.put(s.address(), arena);
            if (closed && hostBuffers.remove(s.address(), arena)) {
                arena.close(); // close() ran meanwhile and did not see this one
                return null;
            }
            return s;
        } catch (OutOfMemoryError | IllegalArgumentException e) {
            arena.close();
            return null;
        }
    }

    void freeHost(MemorySegment buffer) {
        if (buffer == null) {
            return;
        }
        Arena arena = hostBuffers.remove(buffer.address());
        if (arena != null) {
            arena.close();
        }
    }

    RdmaBuffer register(MemorySegment ptr, long size, boolean sessionUp) {
        if (ptr == null || size <= 0 || size > ptr.byteSize()) {
            return refuse("registerBuffer: null memory or size " + size + " not 1.." + (ptr == null ? 0 : ptr.byteSize()));
        }
        return registerSegments(new MemorySegment[] {ptr.asSlice(0, size)}, sessionUp);
    }

    RdmaBuffer register(List<CuObjScatterGatherEntry> sglist, boolean sessionUp) {
        if (sglist == null || sglist.isEmpty() || sglist.size() > CuObj.MAX_SG_ENTRIES) {
            return refuse("registerBuffer: the scatter-gather list must have 1.." + CuObj.MAX_SG_ENTRIES
                    + " entries, has " + (sglist == null ? "none" : sglist.size()));
        }
        MemorySegment[] segments = new MemorySegment[sglist.size()];
        for (int i = 0; i < segments.length; i++) {
            CuObjScatterGatherEntry e = sglist.get(i);
            if (e == null || e.addr() == null || e.size() <= 0 || e.size() > e.addr().byteSize()) {
                return refuse("registerBuffer: entry " + i + " has no memory or a size not 1..its length");
            }
            segments[i] = e.addr().asSlice(0, e.size());
        }
        return registerSegments(segments, sessionUp);
    }

    private RdmaBuffer registerSegments(MemorySegment[] segments, boolean sessionUp) {
        Transport t = transport.get();
        if (!sessionUp || t == null || !t.isAvailable()) {
            return refuse("registerBuffer: the RDMA device is not available");
        }
        try {
            RdmaBuffer b = RdmaBuffer.register(owner, t, segments);
            buffers.add(b);
            if (log.enabled(CuObj.CUOBJ_LOG_PATH_INFO)) {
                log.line("INFO", "registered " + b + " with " + t.name());
            }
            return b;
        } catch (TransportException | RuntimeException e) {
            return refuse("registerBuffer: " + e.getMessage());
        }
    }

    /** Writes the ERROR line of a refused call; returns the null C returns. */
    RdmaBuffer refuse(String why) {
        if (log.enabled(CuObj.CUOBJ_LOG_PATH_ERROR)) {
            log.line("ERROR", why);
        }
        return null;
    }

    RdmaBuffer view(RdmaBuffer base, List<CuObjScatterGatherEntryWithOffset> sglist) {
        if (sglist == null || sglist.isEmpty()) {
            return refuse("getRDMABufferFromSgList: empty list");
        }
        if (base == null || base.owner != owner || base.isView() || !base.isActive()) {
            return refuse("getRDMABufferFromSgList: the base is not a registered buffer of this server");
        }
        if (base.entryCount() != 1) {
            return refuse("getRDMABufferFromSgList: the base has " + base.entryCount()
                    + " registered entries; a view needs a base with one");
        }
        long[] offsets = new long[sglist.size()];
        long[] lengths = new long[sglist.size()];
        long total = 0;
        for (int i = 0; i < offsets.length; i++) {
            CuObjScatterGatherEntryWithOffset e = sglist.get(i);
            if (e == null || e.offset() < 0 || e.size() <= 0 || e.offset() > base.size()
                    || e.size() > base.size() - e.offset()) {
                return refuse("getRDMABufferFromSgList: entry " + i + " is not inside the base buffer");
            }
            offsets[i] = e.offset();
            lengths[i] = e.size();
            total += e.size();
            if (total > base.size()) {
                return refuse("getRDMABufferFromSgList: the view is larger than its base (" + base.size() + " bytes)");
            }
        }
        RdmaBuffer view = RdmaBuffer.view(base, offsets, lengths);
        buffers.add(view);
        return view;
    }

    void releaseView(RdmaBuffer view) {
        if (view == null || !view.isView() || view.owner != owner) {
            refuse("putRDMABufferFromSgList: not a view of this server: " + view);
            return;
        }
        view.end();
        buffers.remove(view);
    }

    void deregister(RdmaBuffer buffer) {
        if (buffer == null) {
            return;
        }
        if (buffer.isView() || buffer.owner != owner) {
            refuse("deRegisterBuffer: not a registered buffer of this server: " + buffer);
            return;
        }
        if (buffer.end()) {
            buffers.remove(buffer);
            buffers.removeIf(b -> b.base() == buffer);
            if (log.enabled(CuObj.CUOBJ_LOG_PATH_INFO)) {
                log.line("INFO", "deregistered " + buffer);
            }
        }
    }

    int count() {
        return buffers.size();
    }

    /**
     * Ends {@code session} (connections first), then views, registered buffers and host memory, each step even
     * when one before it throws: the first failure is thrown afterwards with the others suppressed on it.
     */
    void closeAfter(AutoCloseable session) {
        closed = true;
        List<RdmaBuffer> all = new ArrayList<>(buffers);
        buffers.clear();
        List<AutoCloseable> views = all.stream().filter(RdmaBuffer::isView).<AutoCloseable>map(b -> b::end).toList();
        List<AutoCloseable> registered = all.stream().filter(b -> !b.isView()).<AutoCloseable>map(b -> b::end)
                .toList();
        List<Arena> hostMemory = new ArrayList<>();
        for (Long address : new ArrayList<>(hostBuffers.keySet())) {
            Arena a = hostBuffers.remove(address);
            if (a != null) {
                hostMemory.add(a);
            }
        }
        Closer.closeAll(session, Closer.all(views), Closer.all(registered), Closer.all(hostMemory));
    }
}
