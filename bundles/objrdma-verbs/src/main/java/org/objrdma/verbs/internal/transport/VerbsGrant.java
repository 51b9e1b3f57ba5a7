package org.objrdma.verbs.internal.transport;

import java.lang.foreign.MemorySegment;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.MemoryGrant;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.verbs.internal.ffi.VerbsLibrary.RegisteredMemory;

/**
 * A grant of the verbs transport: either a type-2 memory window bound to its channel's queue pair
 * ({@link #window()} non-null), or, on a device without type-2B windows, a registration of the slice alone
 * ({@link #slice()} non-null). {@link ChannelGrants} makes, revokes and frees it; this class only describes it.
 */
final class VerbsGrant implements MemoryGrant {

    /** A memory window and the rkey of its current (or last) bind; the tag byte changes at every bind. */
    static final class Window {
        final MemorySegment mw;
        int rkey;

        Window(MemorySegment mw, int rkey) {
            this.mw = mw;
            this.rkey = rkey;
        }

        /** The rkey of the next bind: the same window index, the next tag (what {@code ibv_inc_rkey} does). */
        int nextRkey() {
            return (rkey & ~0xff) | ((rkey + 1) & 0xff);
        }
    }

    private final ChannelGrants owner;
    private final VerbsMemoryRegion region;
    private final long offset;
    private final long length;
    private final Set<Access> access;
    private final int rkey;
    private final Window window;
    private final RegisteredMemory slice;
    private volatile boolean valid = true;

    VerbsGrant(ChannelGrants owner, VerbsMemoryRegion region, long offset, long length, Set<Access> access, int rkey,
               Window window, RegisteredMemory slice) {
        this.owner = owner;
        this.region = region;
        this.offset = offset;
        this.length = length;
        this.access = Collections.unmodifiableSet(EnumSet.copyOf(access));
        this.rkey = rkey;
        this.window = window;
        this.slice = slice;
    }

    Window window() {
        return window;
    }

    RegisteredMemory slice() {
        return slice;
    }

    VerbsMemoryRegion verbsRegion() {
        return region;
    }

    /** Marks it revoked; true only for the first call. */
    boolean invalidate() {
        synchronized (this) {
            if (!valid) {
                return false;
            }
            valid = false;
            return true;
        }
    }

    @Override
    public MemoryRegion region() {
        return region;
    }

    @Override
    public long channelId() {
        return owner.channelId();
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
        return region.address() + offset;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public boolean isValid() {
        return valid && region.isOpen();
    }

    @Override
    public void revoke() {
        owner.revoke(this);
    }

    @Override
    public String toString() {
        return "VerbsGrant[rkey 0x" + Integer.toHexString(rkey) + ", channel " + owner.channelId() + ", " + length
                + " bytes at +" + offset + ", " + access + (window != null ? ", window" : ", slice registration")
                + (valid ? "" : ", revoked") + "]";
    }
}
