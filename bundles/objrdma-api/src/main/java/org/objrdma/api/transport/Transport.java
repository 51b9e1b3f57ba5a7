package org.objrdma.api.transport;

import java.lang.foreign.MemorySegment;
import java.util.List;
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
    /**
     * Service property: the {@link EndpointInfo#kind()} of the transport's channels ({@code String}, e.g.
     * {@value EndpointInfo.Tcp#KIND}, {@value EndpointInfo.Verbs#KIND}).
     */
    String PROPERTY_ENDPOINT_KIND = "objrdma.transport.endpoint.kind";
    /**
     * Service property: the flows the transport serves ({@code String[]}, values {@code FLOW_*}), the same set as
     * {@link #flows()}. A consumer binds only a transport that serves its flow with a target filter such as
     * {@code (objrdma.transport.flows=agent-one-sided)}.
     */
    String PROPERTY_FLOWS = "objrdma.transport.flows";
    /**
     * Flow: the server initiates one-sided WRITE / READ into a client's memory that a client-side memory agent
     * exposes, addressed by a cuObject descriptor naming that agent (the cuObject flow over the TCP transport).
     * The server dials the agent channel, which accepts it in INIT ({@link Channel#connect} contract).
     */
    String FLOW_AGENT_ONE_SIDED = "agent-one-sided";
    /** Flow: hipobj-rc-v2 sessions, both sides' endpoints exchanged and connected as RC requires. */
    String FLOW_RC_SESSION = "rc-session";
    /** Flow: one-sided operations to DC targets named by a cuObject descriptor (NVIDIA's mlx5 DC transport). */
    String FLOW_DC = "dc";

    /** Stable name, e.g. {@code tcp} or {@code verbs:mlx5_0}. */
    String name();

    /** How bytes move. */
    TransportLevel level();

    /**
     * The flows this transport serves ({@code FLOW_*}; a transport of a future kind may name flows of its own).
     * Fixed for the transport's life; published as {@link #PROPERTY_FLOWS}. The default, for transports that
     * declare nothing (test doubles), is the empty set: such a transport serves no flow that asks for one.
     */
    default Set<String> flows() {
        return Set.of();
    }

    /**
     * The {@link EndpointInfo#kind()} of this transport's channels, published as {@link #PROPERTY_ENDPOINT_KIND}: a
     * peer's endpoint must be of this kind to {@link Channel#connect}. The default names the kinds of the two built-in
     * {@link #level() levels}; a transport of another kind overrides it.
     */
    default String endpointKind() {
        return level() == TransportLevel.TCP ? EndpointInfo.Tcp.KIND : EndpointInfo.Verbs.KIND;
    }

    /** True if the transport can register memory and open channels now. */
    boolean isAvailable();

    /** Why the transport is not available, or empty when it is. */
    Optional<String> unavailabilityCause();

    /**
     * Registers native memory. The segment must stay alive until the region is closed.
     *
     * <p>An access set without {@code REMOTE_*} registers the region local-only: no peer reaches it except
     * through a {@link MemoryGrant}. {@link Access#REMOTE_READ} / {@link Access#REMOTE_WRITE} here make the whole
     * region reachable with its own rkey through every channel, until it is closed: use it only for a
     * registration made for one peer and closed with it (see {@link MemoryRegion}).
     *
     * @throws TransportException INVALID_ARGUMENT for a heap or zero-length segment or an empty access
     *         set, UNAVAILABLE, RESOURCE_EXHAUSTED, IO
     */
    MemoryRegion register(MemorySegment segment, Set<Access> access) throws TransportException;

    /**
     * Opens a channel in {@link ChannelState#INIT}.
     *
     * @throws TransportException UNAVAILABLE, RESOURCE_EXHAUSTED, IO; INVALID_ARGUMENT for an access key on a
     *         transport without a connect handshake (the {@link Channel} contract, "Access key")
     */
    Channel openChannel(ChannelOptions options) throws TransportException;

    /**
     * The channels open now (closed ones are gone), as values: for operators, not for driving the channels.
     * The default, for transports that keep no such list (test doubles), is empty.
     *
     * @since 2.1
     */
    default List<ChannelInfo> channels() {
        return List.of();
    }
}
