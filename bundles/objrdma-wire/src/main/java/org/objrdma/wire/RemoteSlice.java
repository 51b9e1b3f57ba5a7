package org.objrdma.wire;

import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.MemoryGrant;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;

/**
 * What one side of S3-over-RDMA hands its peer for one transfer: remote access to exactly one slice of local
 * memory, ended by {@link #close()}. Both the servers (a PUT's staging slice) and the client (a GET's target
 * buffer, a cuObject descriptor's memory) make one per transfer and end it when the transfer ends.
 *
 * <p>It is a {@link MemoryGrant} on the transfer's channel whenever the transport can make one then: a slice,
 * for that channel's peer only, with its own rkey. A transport that cannot grant on a channel in its present
 * state ({@code WRONG_STATE} while the channel is still in INIT: verbs binds a memory window only on a connected queue pair, and the rkey must be
 * known before the peer connects) or cannot grant at all ({@code UNAVAILABLE}) gets a <em>registration of the
 * slice</em> instead: its own rkey, exactly the slice, exactly the access, deregistered on close — sliced and
 * revocable like a grant, but reachable from any channel of the transport (verbs: any queue pair of the
 * protection domain). {@link #isChannelBound()} says which one it is.
 *
 * <p>Ownership: whoever opened it closes it, once the peer may no longer touch the slice and before the memory
 * goes to anyone else. Closing is idempotent and never throws.
 */
public final class RemoteSlice implements AutoCloseable {
    private final MemoryGrant grant;
    private final MemoryRegion sliceRegion;
    private final RemoteRegion remote;
    private final AtomicBoolean closed = new AtomicBoolean();

    private RemoteSlice(MemoryGrant grant, MemoryRegion sliceRegion, RemoteRegion remote) {
        this.grant = grant;
        this.sliceRegion = sliceRegion;
        this.remote = remote;
    }

    /**
     * Opens remote access to {@code [offset, offset + length)} of {@code region} for the peer of {@code channel}.
     *
     * @param access a non-empty subset of {REMOTE_READ, REMOTE_WRITE}
     * @throws TransportException what {@link Channel#grant} throws other than WRONG_STATE / UNAVAILABLE, or what
     *         registering the slice throws; nothing stays open then
     */
    public static RemoteSlice open(Transport transport, Channel channel, MemoryRegion region, long offset,
                                   long length, Set<Access> access) throws TransportException {
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(channel, "channel");
        Objects.requireNonNull(region, "region");
        try {
            MemoryGrant g = channel.grant(region, offset, length, access);
            return new RemoteSlice(g, null, g.asRemote());
        } catch (TransportException e) {
            // only a channel that has not connected yet may fall back: one in ERROR or CLOSED gets no access at all
            boolean notYet = e.error() == TransportError.WRONG_STATE && channel.state() == ChannelState.INIT;
            if (!notYet && e.error() != TransportError.UNAVAILABLE) {
                throw e;
            }
        }
        if (offset < 0 || length <= 0 || offset > region.length() - length) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "slice [" + offset + ", +" + length
                    + ") outside the region of " + region.length() + " bytes");
        }
        EnumSet<Access> sliceAccess = EnumSet.copyOf(access);
        if (sliceAccess.contains(Access.REMOTE_WRITE)) {
            sliceAccess.add(Access.LOCAL_WRITE); // verbs requires it with REMOTE_WRITE
        }
        MemoryRegion slice = transport.register(region.segment().asSlice(offset, length), sliceAccess);
        return new RemoteSlice(null, slice, new RemoteRegion(slice.address(), slice.length(), slice.rkey()));
    }

    /**
     * A grant of {@code [offset, offset + length)} of {@code region} on {@code channel} only, never a slice
     * registration: for a caller that would rather make the channel able to grant (verbs: connect the queue pair
     * first) than fall back.
     *
     * @throws TransportException what {@link Channel#grant} throws ({@code WRONG_STATE} on a verbs channel in INIT)
     */
    public static RemoteSlice grant(Channel channel, MemoryRegion region, long offset, long length,
                                    Set<Access> access) throws TransportException {
        MemoryGrant g = Objects.requireNonNull(channel, "channel").grant(region, offset, length, access);
        return new RemoteSlice(g, null, g.asRemote());
    }

    /**
     * As {@link #grant}, by {@link Channel#grantOpaque}: where the transport can, the address the peer is given is
     * an opaque base, not where the slice lies in this process (a server's PREPARE answer, say).
     */
    public static RemoteSlice grantOpaque(Channel channel, MemoryRegion region, long offset, long length,
                                          Set<Access> access) throws TransportException {
        MemoryGrant g = Objects.requireNonNull(channel, "channel").grantOpaque(region, offset, length, access);
        return new RemoteSlice(g, null, g.asRemote());
    }

    /** Address, length and rkey the peer needs. */
    public RemoteRegion remote() {
        return remote;
    }

    /** The rkey the peer presents. */
    public int rkey() {
        return remote.rkey();
    }

    /** True for a grant (only the channel's peer reaches the slice), false for a slice registration. */
    public boolean isChannelBound() {
        return grant != null;
    }

    /** False once closed, or once the transport ended the grant or registration (channel reset, close). */
    public boolean isValid() {
        return !closed.get() && (grant != null ? grant.isValid() : sliceRegion.isOpen());
    }

    /** Revokes the grant or deregisters the slice: once this returns the peer no longer reaches it. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (grant != null) {
            grant.revoke();
        } else {
            sliceRegion.close();
        }
    }

    @Override
    public String toString() {
        return "RemoteSlice[" + (grant != null ? "grant" : "slice registration") + ", " + remote.length() + " bytes]";
    }
}
