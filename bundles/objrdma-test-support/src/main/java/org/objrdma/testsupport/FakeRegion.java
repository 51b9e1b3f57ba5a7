package org.objrdma.testsupport;

import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.MemoryRegion;

/** A registration a {@link FakeTransport} recorded: its segment, one key for lkey and rkey, its close calls. */
public final class FakeRegion implements MemoryRegion {
    private final FakeTransport transport;
    private final MemorySegment segment;
    private final Set<Access> access;
    private final int key;
    private final AtomicInteger closeCalls = new AtomicInteger();
    private volatile boolean open = true;
    /** Whether the memory was still readable when the region first closed (a pool must close before freeing). */
    public volatile boolean memoryAliveAtClose;

    FakeRegion(FakeTransport transport, MemorySegment segment, Set<Access> access, int key) {
        this.transport = transport;
        this.segment = segment;
        this.access = access;
        this.key = key;
    }

    @Override public MemorySegment segment() { return segment; }
    @Override public long address() { return segment.address(); }
    @Override public long length() { return segment.byteSize(); }
    @Override public int lkey() { return key; }
    @Override public int rkey() { return key; }
    @Override public Set<Access> access() { return access; }
    @Override public String transportName() { return transport.name(); }
    @Override public boolean isOpen() { return open; }

    @Override
    public void close() {
        closeCalls.incrementAndGet();
        synchronized (this) {
            if (!open) {
                return;
            }
            memoryAliveAtClose = segment.scope().isAlive();
            open = false;
        }
        transport.openRegions.remove(key, this);
    }

    /** How often {@link #close} was called. */
    public int closeCalls() {
        return closeCalls.get();
    }

    @Override
    public String toString() {
        return "FakeRegion[" + transport.name() + " key " + key + ", " + length() + " bytes, " + (open ? "open" : "closed") + "]";
    }
}
