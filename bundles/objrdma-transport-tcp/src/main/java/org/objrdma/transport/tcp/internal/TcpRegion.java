package org.objrdma.transport.tcp.internal;

import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.MemoryRegion;

/**
 * A registration of native memory with one {@link TcpTransport}. It owns no memory, only the right of the
 * transport's threads to touch it.
 *
 * <p>Every access to the segment — a peer's WRITE landing, a READ being served, a local payload being sent
 * or received — happens under a short lease ({@link #acquire()} / {@link #release()}, one frame at a time).
 * {@link #close()} refuses new leases at once, waits for the leases out to be returned (cutting the
 * connections that hold them if that takes longer than the configured grace), and only then returns, so the
 * owner may free the memory as soon as close returns.
 */
final class TcpRegion implements MemoryRegion {
    private final TcpTransport transport;
    private final MemorySegment segment;
    private final long address;
    private final long length;
    private final int lkey;
    private final int rkey;
    private final Set<Access> access;
    private final LeaseGate leases = new LeaseGate();

    TcpRegion(TcpTransport transport, MemorySegment segment, Set<Access> access, int lkey, int rkey) {
        this.transport = transport;
        this.segment = segment;
        this.address = segment.address();
        this.length = segment.byteSize();
        this.lkey = lkey;
        this.rkey = rkey;
        this.access = Collections.unmodifiableSet(EnumSet.copyOf(access));
    }

    TcpTransport transport() {
        return transport;
    }

    boolean allows(Access a) {
        return access.contains(a);
    }

    /**
     * True if {@code [addr, addr + len)} lies inside the region; unsigned arithmetic so that an address
     * below the start or a length that wraps cannot pass.
     */
    boolean contains(long addr, long len) {
        long offset = addr - address;
        return len >= 0 && Long.compareUnsigned(offset, length) <= 0
                && Long.compareUnsigned(len, length - offset) <= 0;
    }

    /** Takes a lease; false once the region is closed. */
    boolean acquire() {
        return leases.acquire();
    }

    /** Returns a lease taken by {@link #acquire()}. */
    void release() {
        leases.release();
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public Set<Access> access() {
        return access;
    }

    @Override
    public String transportName() {
        return transport.name();
    }

    @Override
    public boolean isOpen() {
        return !leases.isShut();
    }

    @Override
    public void close() {
        if (!leases.shut()) {
            return; // closed before: harmless
        }
        // no new remote access can find it from here on
        transport.forgetRegion(this);
        if (!leases.awaitReturned(transport.settings().regionCloseGrace().toNanos())) {
            // a peer stalls in the middle of a frame on this memory: cut its connection so the blocked read
            // or write returns, then the lease comes back
            transport.abortConnectionsTouching(this);
            if (!leases.awaitReturned(transport.settings().shutdownTimeout().toNanos())) {
                TcpTransport.LOG.error("region rkey {} still has {} leases out after close; its memory must not "
                        + "be freed", Integer.toUnsignedString(rkey, 16), leases.leasesOut());
            }
        }
    }

    @Override
    public String toString() {
        return "TcpRegion[rkey " + Integer.toUnsignedString(rkey, 16) + ", " + length + " bytes at 0x"
                + Long.toHexString(address) + (isOpen() ? "" : ", closed") + "]";
    }
}
