package org.objrdma.verbs.internal.transport;

import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.verbs.internal.ffi.VerbsLibrary.RegisteredMemory;

/** An {@code ibv_mr}: the registration of memory someone else owns. Closing deregisters, once. */
final class VerbsMemoryRegion implements MemoryRegion {
    private final VerbsTransport transport;
    private final MemorySegment segment;
    private final RegisteredMemory registered;
    private final Set<Access> access;
    private final AtomicBoolean open = new AtomicBoolean(true);
    /** Grants on this region: revoked before it is deregistered (a bound window keeps an MR busy). */
    private final Set<VerbsGrant> grants = ConcurrentHashMap.newKeySet();

    VerbsMemoryRegion(VerbsTransport transport, MemorySegment segment, RegisteredMemory registered, Set<Access> access) {
        this.transport = transport;
        this.segment = segment;
        this.registered = registered;
        this.access = Collections.unmodifiableSet(EnumSet.copyOf(access));
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public long address() {
        return registered.address();
    }

    @Override
    public long length() {
        return registered.length();
    }

    @Override
    public int lkey() {
        return registered.lkey();
    }

    @Override
    public int rkey() {
        return registered.rkey();
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
        return open.get();
    }

    VerbsTransport transport() {
        return transport;
    }

    /** Revokes its grants, then deregisters (unless the transport's close already did). Idempotent; never throws. */
    @Override
    public void close() {
        if (open.compareAndSet(true, false)) {
            while (!grants.isEmpty()) {
                for (VerbsGrant g : List.copyOf(grants)) {
                    g.revoke();
                }
            }
            transport.deregister(this, registered.mr());
        }
    }

    void grantMade(VerbsGrant g) {
        grants.add(g);
    }

    void grantEnded(VerbsGrant g) {
        grants.remove(g);
    }

    /** The transport deregistered it while closing. */
    void markClosed() {
        open.set(false);
    }

    MemorySegment mr() {
        return registered.mr();
    }

    String lengthAndKey() {
        return registered.length() + "B lkey 0x" + Integer.toHexString(registered.lkey());
    }

    @Override
    public String toString() {
        return "VerbsMemoryRegion[" + transport.name() + ", 0x" + Long.toHexString(address()) + " +" + length()
                + ", lkey 0x" + Integer.toHexString(lkey()) + ", rkey 0x" + Integer.toHexString(rkey()) + ", "
                + (isOpen() ? "open" : "closed") + "]";
    }
}
