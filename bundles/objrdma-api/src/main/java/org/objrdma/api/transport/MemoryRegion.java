package org.objrdma.api.transport;

import java.lang.foreign.MemorySegment;
import java.util.Set;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Off-heap memory registered with a {@link Transport}: what verbs calls an MR.
 *
 * <p>The region does not own the memory it describes, only the registration: {@link #close()}
 * deregisters and leaves the segment to whoever allocated it. Whoever called
 * {@link Transport#register} owns the region and is the only one who closes it; closing twice is
 * harmless. Local work requests use it through {@link ScatterGatherEntry}.
 *
 * <p>Remote access: register the region local-only (no {@code REMOTE_*} in its access set) and give a peer a
 * {@link MemoryGrant} from {@link Channel#grant}: a slice, for one channel, revocable. A region registered
 * with {@code REMOTE_*} access is also reachable with its own {@link #rkey()}, over its whole length, through
 * every channel of the transport, until it is closed: no objrdma consumer registers that way any more (2.0.0
 * removed {@code asRemote()}, the convenience that handed the key out); what is left is a registration made for
 * one peer and closed with it (a slice registration where a channel cannot grant yet) and transport tests.
 */
@ProviderType
public interface MemoryRegion extends AutoCloseable {

    /** The registered memory. Valid while the region is open. */
    MemorySegment segment();

    /** Start address peers use in one-sided operations (the segment's native address for verbs). */
    long address();

    /** Registered length in bytes. */
    long length();

    /** Key local work requests present. */
    int lkey();

    /**
     * The region's own remote key: opens the whole region to the peer of any channel if the region was
     * registered with {@code REMOTE_*} access; useless remotely for a local-only region. Peers should get a
     * {@link MemoryGrant#rkey()} instead.
     */
    int rkey();

    /** What the region allows. */
    Set<Access> access();

    /** Name of the transport the region is registered with. */
    String transportName();

    /** False once {@link #close()} ran or the transport went away. */
    boolean isOpen();

    /** Deregisters. Idempotent; never throws. Work still in flight on the region fails with a named status. */
    @Override
    void close();
}
