package org.objrdma.api.transport;

import java.lang.foreign.MemorySegment;
import java.util.Optional;
import java.util.Set;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A way to move bytes one-sidedly between this process's memory and a peer's: the verbs RC transport
 * on an RDMA NIC, or the TCP transport that carries the same semantics in software.
 *
 * <p>Transports are OSGi services. Consumers bind them dynamically and greedily (highest
 * {@code service.ranking} wins, or a configured target filter on {@link #PROPERTY_NAME}); when the bound
 * transport goes away its regions and channels close, in-flight work fails with a named status, and
 * consumers continue on the next one.
 *
 * <p>Ownership: a transport owns its device resources. A {@link MemoryRegion} or {@link Channel} it hands
 * out is owned by the caller, who closes it; the transport closes whatever is left when it is
 * deactivated, channels first, then regions, then the device.
 */
@ProviderType
public interface Transport {
    /** Service property: the transport's {@link #name()}. */
    String PROPERTY_NAME = "objrdma.transport.name";
    /** Service property: the transport's {@link #level()} as its enum name. */
    String PROPERTY_LEVEL = "objrdma.transport.level";

    /** Stable name, e.g. {@code tcp} or {@code verbs:mlx5_0}. */
    String name();

    /** How bytes move. */
    TransportLevel level();

    /** True if the transport can register memory and open channels now. */
    boolean isAvailable();

    /** Why the transport is not available, or empty when it is. */
    Optional<String> unavailabilityCause();

    /**
     * Registers native memory. The segment must stay alive until the region is closed.
     *
     * <p>An access set without {@code REMOTE_*} registers the region local-only: no peer reaches it except
     * through a {@link MemoryGrant}. {@link Access#REMOTE_READ} / {@link Access#REMOTE_WRITE} here make the whole
     * region reachable with its own rkey through every channel; that is deprecated (see
     * {@link MemoryRegion#asRemote()}) and kept only until every consumer uses grants.
     *
     * @throws TransportException INVALID_ARGUMENT for a heap or zero-length segment or an empty access
     *         set, UNAVAILABLE, RESOURCE_EXHAUSTED, IO
     */
    MemoryRegion register(MemorySegment segment, Set<Access> access) throws TransportException;

    /**
     * Opens a channel in {@link ChannelState#INIT}.
     *
     * @throws TransportException UNAVAILABLE, RESOURCE_EXHAUSTED, IO
     */
    Channel openChannel(ChannelOptions options) throws TransportException;
}
