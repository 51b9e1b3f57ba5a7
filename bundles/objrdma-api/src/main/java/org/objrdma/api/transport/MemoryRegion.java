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
 * harmless. A peer addresses the region by {@link #address()} and {@link #rkey()}
 * (see {@link #asRemote()}); local work requests use it through {@link ScatterGatherEntry}.
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

    /** Key a peer presents for one-sided access; unguessable for the TCP transport. */
    int rkey();

    /** What the region allows. */
    Set<Access> access();

    /** Name of the transport the region is registered with. */
    String transportName();

    /** False once {@link #close()} ran or the transport went away. */
    boolean isOpen();

    /** What a peer needs to address the whole region. */
    default RemoteRegion asRemote() {
        return new RemoteRegion(address(), length(), rkey());
    }

    /** Deregisters. Idempotent; never throws. Work still in flight on the region fails with a named status. */
    @Override
    void close();
}
