package org.objrdma.transport.tcp.internal;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.MemoryGrant;
import org.objrdma.api.transport.MemoryRegion;

/**
 * A slice of a {@link TcpRegion} opened to the peer of one {@link TcpChannel}: an entry of that channel's
 * grant table. Only the connection of that channel ever looks it up, so the table itself is the channel
 * binding; the checks here are slice, access and liveness.
 *
 * <p>Every access through the grant runs under a lease of the grant and one of its region (one frame at a
 * time), so {@link #revoke()} can promise that the slice is no longer touched on the grant's behalf when it
 * returns: it refuses new leases, takes the entry out of the table, and waits for the leases out.
 */
final class TcpGrant implements MemoryGrant {
    private final TcpChannel channel;
    private final TcpRegion region;
    private final long offset;
    private final long length;
    private final Set<Access> access;
    private final int rkey;
    /** What the peer addresses the slice's first byte as: the slice's address, or an opaque base. */
    private final long base;
    private final LeaseGate leases = new LeaseGate();

    TcpGrant(TcpChannel channel, TcpRegion region, long offset, long length, Set<Access> access, int rkey,
             long base) {
        this.channel = channel;
        this.region = region;
        this.offset = offset;
        this.length = length;
        this.access = Collections.unmodifiableSet(EnumSet.copyOf(access));
        this.rkey = rkey;
        this.base = base;
    }

    /** Where {@code addr} (a peer's address, {@link #permits permitted} before) lies in the region. */
    long regionOffset(long addr) {
        return offset + (addr - base);
    }

    TcpRegion tcpRegion() {
        return region;
    }

    /**
     * True if the grant is live and lets {@code [addr, addr + len)} be accessed with {@code wanted}; unsigned
     * arithmetic, so an address below the slice or a length that wraps cannot pass.
     */
    boolean permits(long addr, long len, Access wanted) {
        long into = addr - address();
        return !leases.isShut() && region.isOpen() && access.contains(wanted) && len >= 0
                && Long.compareUnsigned(into, length) <= 0 && Long.compareUnsigned(len, length - into) <= 0;
    }

    /** A lease on the grant and on its region; false once either is closed. */
    boolean acquire() {
        if (!leases.acquire()) {
            return false;
        }
        if (!region.acquire()) {
            leases.release();
            return false;
        }
        return true;
    }

    /** Returns a lease taken by {@link #acquire()}. */
    void release() {
        region.release();
        leases.release();
    }

    @Override
    public MemoryRegion region() {
        return region;
    }

    @Override
    public long channelId() {
        return channel.id();
    }

    @Override
    public long offset() {
        return offset;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public Set<Access> access() {
        return access;
    }

    @Override
    public long address() {
        return base;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public boolean isValid() {
        return !leases.isShut() && region.isOpen();
    }

    @Override
    public void revoke() {
        if (!leases.shut()) {
            return; // revoked before: harmless
        }
        channel.forgetGrant(this);
        TcpSettings s = channel.transport().settings();
        if (!leases.awaitReturned(s.regionCloseGrace().toNanos())) {
            // the peer stalls inside a frame on this slice: cut the connection so the blocked read returns
            channel.abortConnection(EndCause.REGION_CLOSED, "it stalls on revoked grant " + this);
            if (!leases.awaitReturned(s.shutdownTimeout().toNanos())) {
                TcpTransport.LOG.error("grant {} still has {} leases out after revoke; its slice must not be reused",
                        this, leases.leasesOut());
            }
        }
    }

    @Override
    public String toString() {
        return "TcpGrant[rkey " + Integer.toUnsignedString(rkey, 16) + ", channel " + channel.id() + ", " + length
                + " bytes at +" + offset + " of " + region + ", " + access + (leases.isShut() ? ", revoked" : "") + "]";
    }
}
