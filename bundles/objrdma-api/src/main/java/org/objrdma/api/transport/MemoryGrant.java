package org.objrdma.api.transport;

import java.util.Set;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Remote access to one slice of one registered region, for the peer of one channel only: what verbs calls a
 * type-2 memory window bound to a queue pair.
 *
 * <p>A grant is the only way a peer should reach local memory. It names a slice {@code [offset, offset +
 * length)} of a {@link MemoryRegion}, the remote operations allowed on it ({@link Access#REMOTE_READ},
 * {@link Access#REMOTE_WRITE}), and the {@link Channel} it was made on, and it has an {@link #rkey()} of its
 * own. The responder checks every remote access against the grant the rkey names: an access that arrives
 * through another channel, falls outside the slice, needs an access the grant lacks, or comes after
 * {@link #revoke()}, completes at the requester with {@link WcStatus#REM_ACCESS_ERR} and touches no memory.
 *
 * <p>Life: {@link Channel#grant} makes it; the owner revokes it when the lease or session it served ends.
 * The transport revokes it by itself when its channel is reset or closed, and it stops working when its
 * region is closed. Revoking is idempotent and never throws; once {@code revoke()} returns, the transport
 * no longer touches the slice on behalf of this grant, so the memory may be handed to someone else.
 */
@ProviderType
public interface MemoryGrant extends AutoCloseable {

    /** The region the slice belongs to. */
    MemoryRegion region();

    /** {@link Channel#id()} of the only channel whose peer may use the grant. */
    long channelId();

    /** Start of the slice, in bytes from the start of the region. */
    long offset();

    /** Length of the slice in bytes; positive. */
    long length();

    /** The remote operations allowed: a non-empty subset of {REMOTE_READ, REMOTE_WRITE}. */
    Set<Access> access();

    /**
     * Address the peer puts in its work requests for the first byte of the slice: the slice's virtual address for
     * a grant made by {@link Channel#grant}, an opaque base the transport maps back for one made by
     * {@link Channel#grantOpaque} on a transport that supports it.
     */
    long address();

    /** Key the peer presents; names this grant only, never the region. */
    int rkey();

    /** What the peer needs: address, length and rkey of the slice. */
    default RemoteRegion asRemote() {
        return new RemoteRegion(address(), length(), rkey());
    }

    /** False once revoked (by the owner, a channel reset or close) or once the region was closed. */
    boolean isValid();

    /**
     * Ends the grant: later accesses with its rkey complete with {@link WcStatus#REM_ACCESS_ERR}. Waits for an
     * access in progress through the grant to leave the slice. Idempotent; never throws.
     */
    void revoke();

    /** Same as {@link #revoke()}. */
    @Override
    default void close() {
        revoke();
    }
}
