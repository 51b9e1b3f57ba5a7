package org.objrdma.verbs;

import java.util.List;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.Mtu;
import org.osgi.annotation.versioning.ProviderType;

/**
 * One RDMA device port as libibverbs reported it when the {@code org.objrdma.verbs} component activated.
 * A value-like service: the attributes are read once and repeated as service properties (the
 * {@code PROPERTY_*} names), so consumers can filter on them without calling the service.
 *
 * <p>The device's verbs RC transport is a separate {@code org.objrdma.api.transport.Transport} service
 * whose {@code objrdma.transport.name} is {@link #transportName()}; it is registered only while the port
 * is ACTIVE.
 */
@ProviderType
public interface VerbsDevice {
    /** Service property: device name ({@code String}), e.g. {@code mlx5_0}. */
    String PROPERTY_DEVICE_NAME = "objrdma.verbs.device";
    /** Service property: node GUID as 16 lower-case hex digits ({@code String}). */
    String PROPERTY_NODE_GUID = "objrdma.verbs.node.guid";
    /** Service property: port number, 1-based ({@code Integer}). */
    String PROPERTY_PORT = "objrdma.verbs.port";
    /** Service property: {@link PortState} name ({@code String}). */
    String PROPERTY_PORT_STATE = "objrdma.verbs.port.state";
    /** Service property: {@link LinkLayer} name ({@code String}). */
    String PROPERTY_LINK_LAYER = "objrdma.verbs.link.layer";
    /** Service property: active MTU in bytes ({@code Integer}). */
    String PROPERTY_ACTIVE_MTU = "objrdma.verbs.active.mtu";
    /** Service property: port LID ({@code Integer}), 0 on Ethernet. */
    String PROPERTY_LID = "objrdma.verbs.lid";
    /** Service property: every non-zero GID of the port as 32 hex digits ({@code String[]}, index order). */
    String PROPERTY_GIDS = "objrdma.verbs.gids";
    /** Service property: the GID index the transport uses ({@code Integer}). */
    String PROPERTY_GID_INDEX = "objrdma.verbs.gid.index";
    /** Service property: most queue pairs ({@code Integer}). */
    String PROPERTY_MAX_QP = "objrdma.verbs.max.qp";
    /** Service property: most memory regions ({@code Integer}). */
    String PROPERTY_MAX_MR = "objrdma.verbs.max.mr";
    /** Service property: most entries of one completion queue ({@code Integer}). */
    String PROPERTY_MAX_CQE = "objrdma.verbs.max.cqe";
    /** Service property: true when the device is the software test device, not a NIC ({@code Boolean}). */
    String PROPERTY_SOFTWARE = "objrdma.verbs.software";
    /**
     * Service property: how the device's transport makes memory grants ({@code String}):
     * {@link #GRANTS_MEMORY_WINDOWS} or {@link #GRANTS_SLICE_REGISTRATION}.
     */
    String PROPERTY_GRANTS = "objrdma.verbs.grants";
    /** Service property: most memory windows ({@code Integer}; 0 without windows). */
    String PROPERTY_MAX_MW = "objrdma.verbs.max.mw";
    /**
     * Grants are type-2 memory windows bound to the channel's queue pair ({@code IBV_DEVICE_MEM_WINDOW_TYPE_2B}):
     * the NIC refuses an access through any other queue pair.
     */
    String GRANTS_MEMORY_WINDOWS = "memory-window-type-2b";
    /**
     * The device has no type-2B windows: each grant is a registration of its slice. Sliced, revocable and with
     * its own rkey, but not bound to one queue pair: any queue pair of the protection domain can use the rkey.
     */
    String GRANTS_SLICE_REGISTRATION = "slice-registration";

    /** Device name as libibverbs reports it. */
    String name();

    /** Node GUID (host order: the hex form reads as {@code ibv_devices} prints it). */
    long nodeGuid();

    /** Port number, 1-based. */
    int port();

    /** Port state when the component activated. */
    PortState portState();

    /** Link layer of the port. */
    LinkLayer linkLayer();

    /** Active MTU of the port. */
    Mtu activeMtu();

    /** Port LID; 0 on Ethernet (RoCE). */
    int lid();

    /** Non-zero GIDs of the port, as (index, gid) pairs in index order. */
    List<IndexedGid> gids();

    /** Index into the GID table the transport uses as its source GID. */
    int gidIndex();

    /** Most queue pairs the device supports. */
    int maxQp();

    /** Most memory regions the device supports. */
    int maxMr();

    /** Most entries of one completion queue. */
    int maxCqe();

    /** True for the software test device, which is no NIC. */
    boolean isSoftware();

    /** {@link #GRANTS_MEMORY_WINDOWS} or {@link #GRANTS_SLICE_REGISTRATION}. */
    String grantMechanism();

    /** Most memory windows the device supports (0 without windows). */
    int maxMw();

    /** {@code verbs:<name>}: the {@code objrdma.transport.name} of this device's transport service. */
    default String transportName() {
        return "verbs:" + name();
    }

    /**
     * One entry of a port's GID table.
     *
     * @param index table index, as {@code ibv_query_gid} takes it
     * @param gid   the GID
     */
    record IndexedGid(int index, Gid gid) {
    }
}
