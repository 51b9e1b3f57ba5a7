package org.objrdma.verbs.internal.transport;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.MemoryGrant;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.transport.common.TransportChecks;
import org.objrdma.verbs.internal.ffi.DataPath;
import org.objrdma.verbs.internal.ffi.Errno;
import org.objrdma.verbs.internal.ffi.IbvConstants;
import org.objrdma.verbs.internal.ffi.VerbsException;
import org.objrdma.verbs.internal.ffi.VerbsLibrary.RegisteredMemory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The grants of one {@link VerbsChannel}.
 *
 * <p>On a device with type-2B memory windows a grant is a window bound by an {@code IBV_WR_BIND_MW} work
 * request on the channel's own queue pair, so the NIC itself refuses the rkey on any other queue pair; revoking
 * posts {@code IBV_WR_LOCAL_INV} and keeps the unbound window for the next grant (the next bind changes the
 * rkey's tag byte, so an old rkey stays dead); a window whose invalidate did not succeed (the queue pair is in
 * ERR) is deallocated instead, which invalidates it too. Reset and close deallocate every window: nothing bound
 * to the old connection survives. Without windows each grant is a registration of the slice, deregistered on
 * revoke (sliced and revocable, but any queue pair of the protection domain could present its rkey).
 *
 * <p>One lock serialises grant, revoke and the bulk revocation of reset and close; it is always taken before
 * the channel's post and completion locks, never inside them.
 */
final class ChannelGrants {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelGrants.class);

    /** How long a bind or invalidate may take on the device. */
    static final long WINDOW_WORK_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final VerbsChannel channel;
    private final VerbsTransport transport;
    private final boolean windows;
    private final ReentrantLock lock = new ReentrantLock();
    private final Set<VerbsGrant> live = new LinkedHashSet<>();
    private final ArrayDeque<VerbsGrant.Window> idle = new ArrayDeque<>();
    private boolean closed;

    ChannelGrants(VerbsChannel channel, VerbsTransport transport) {
        this.channel = channel;
        this.transport = transport;
        this.windows = transport.grantsByMemoryWindows();
    }

    long channelId() {
        return channel.id();
    }

    MemoryGrant grant(MemoryRegion region, long offset, long length, Set<Access> access) throws TransportException {
        TransportChecks.checkGrant(region, offset, length, access,
                x -> x instanceof VerbsMemoryRegion v && v.transport() == transport, transport.name());
        VerbsMemoryRegion r = (VerbsMemoryRegion) region;
        lock.lock();
        try {
            if (closed) {
                throw new TransportException(TransportError.CLOSED, "channel " + channel.id() + " is closed");
            }
            if (!r.isOpen()) {
                throw new TransportException(TransportError.CLOSED, "region " + r + " is closed");
            }
            // both kinds alike: a window is bound through the connected queue pair, and a slice registration
            // keeps the same rule so consumers see one model
            ChannelState state = channel.state();
            if (state != ChannelState.CONNECTED) {
                throw new TransportException(state == ChannelState.CLOSED ? TransportError.CLOSED
                        : TransportError.WRONG_STATE, "channel " + channel.id() + " is " + state
                        + ": verbs grants on a connected channel only");
            }
            VerbsGrant g = windows ? bindWindow(r, offset, length, access) : registerSlice(r, offset, length, access);
            live.add(g);
            r.grantMade(g);
            if (!r.isOpen()) {
                revoke(g); // the region closed meanwhile and may have missed it
                throw new TransportException(TransportError.CLOSED, "region " + r + " was closed while granting");
            }
            return g;
        } finally {
            lock.unlock();
        }
    }

    private VerbsGrant bindWindow(VerbsMemoryRegion r, long offset, long length, Set<Access> access)
            throws TransportException {
        VerbsGrant.Window w = idle.poll();
        if (w == null) {
            MemorySegment mw = transport.dataPath().allocMw(transport.protectionDomain(), IbvConstants.IBV_MW_TYPE_2);
            if (mw.equals(MemorySegment.NULL)) {
                throw new TransportException(TransportError.RESOURCE_EXHAUSTED, transport.name()
                        + ": ibv_alloc_mw refused a type-2 window (the device's max_mw is "
                        + transport.device().device().maxMw() + ")");
            }
            w = new VerbsGrant.Window(mw, DataPath.mwRkey(mw));
        }
        int rkey = w.nextRkey();
        WcStatus st;
        try {
            st = channel.postWindowWork(WindowWork.bind(w.mw, rkey, r.mr(), r.address() + offset, length,
                    Access.toVerbsFlags(access)), WINDOW_WORK_TIMEOUT_NANOS);
        } catch (TransportException e) {
            idle.push(w); // not posted: the window is as unbound as before
            throw e;
        }
        if (st != WcStatus.SUCCESS) {
            dealloc(w);
            if (st == null) {
                throw new TransportException(TransportError.TIMEOUT, "channel " + channel.id()
                        + ": the device did not complete the window bind in time");
            }
            throw new TransportException(st == WcStatus.WR_FLUSH_ERR ? TransportError.WRONG_STATE : TransportError.IO,
                    "channel " + channel.id() + ": binding a memory window failed with " + st + " ("
                            + st.description() + ")");
        }
        w.rkey = rkey;
        return new VerbsGrant(this, r, offset, length, access, rkey, w, null);
    }

    private VerbsGrant registerSlice(VerbsMemoryRegion r, long offset, long length, Set<Access> access)
            throws TransportException {
        int flags = Access.toVerbsFlags(access)
                | (access.contains(Access.REMOTE_WRITE) ? IbvConstants.IBV_ACCESS_LOCAL_WRITE : 0);
        try {
            RegisteredMemory slice = transport.library().regMr(transport.protectionDomain(),
                    r.segment().asSlice(offset, length), flags);
            return new VerbsGrant(this, r, offset, length, access, slice.rkey(), null, slice);
        } catch (VerbsException e) {
            throw new TransportException(TransportError.RESOURCE_EXHAUSTED, transport.name()
                    + ": registering the granted slice failed: " + e.getMessage(), e);
        }
    }

    /** Ends one grant: invalidate (window kept for reuse) or deregister. Idempotent; never throws. */
    void revoke(VerbsGrant g) {
        lock.lock();
        try {
            if (!g.invalidate()) {
                return;
            }
            live.remove(g);
            g.verbsRegion().grantEnded(g);
            if (g.window() == null) {
                deregister(g);
                return;
            }
            WcStatus st;
            try {
                st = channel.postWindowWork(WindowWork.invalidate(g.window().rkey),
                        WINDOW_WORK_TIMEOUT_NANOS);
            } catch (TransportException e) {
                st = null; // closed or not connected: deallocating invalidates just as well
            }
            if (st == WcStatus.SUCCESS) {
                idle.push(g.window());
            } else {
                dealloc(g.window());
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Revokes every grant by deallocating its window (or deregistering its slice) without any work request, so
     * it works whatever state the queue pair is in; with {@code close} also frees the idle windows and refuses
     * new grants. Called before a reset or close touches the queue pair.
     */
    void revokeAll(boolean close) {
        lock.lock();
        try {
            List<VerbsGrant> all = new ArrayList<>(live);
            live.clear();
            for (VerbsGrant g : all) {
                if (g.invalidate()) {
                    g.verbsRegion().grantEnded(g);
                    if (g.window() != null) {
                        dealloc(g.window());
                    } else {
                        deregister(g);
                    }
                }
            }
            if (close) {
                closed = true;
                VerbsGrant.Window w;
                while ((w = idle.poll()) != null) {
                    dealloc(w);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** Grants alive now; for tests. */
    int liveCount() {
        lock.lock();
        try {
            return live.size();
        } finally {
            lock.unlock();
        }
    }

    private void dealloc(VerbsGrant.Window w) {
        int rc = transport.dataPath().deallocMw(w.mw);
        if (rc != 0) {
            LOG.warn("channel {}: ibv_dealloc_mw failed: {}", channel.id(), Errno.describe(rc));
        }
    }

    private void deregister(VerbsGrant g) {
        int rc = transport.library().deregMr(g.slice().mr());
        if (rc != 0) {
            LOG.warn("channel {}: ibv_dereg_mr of the slice of {} failed: {}", channel.id(), g, Errno.describe(rc));
        }
    }
}
