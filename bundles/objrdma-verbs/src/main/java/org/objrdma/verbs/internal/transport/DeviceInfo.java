package org.objrdma.verbs.internal.transport;

import java.util.List;
import java.util.Map;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.Mtu;
import org.objrdma.verbs.LinkLayer;
import org.objrdma.verbs.PortState;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.internal.ffi.DeviceAttributes;
import org.objrdma.verbs.internal.ffi.GidType;
import org.objrdma.verbs.internal.ffi.PortAttributes;

/**
 * One device port as queried at activation: what the {@code VerbsDevice} service reports and what the
 * transport needs to build endpoints and size queues.
 *
 * @param name     device name
 * @param nodeGuid node GUID, host order
 * @param port     port number
 * @param device   device attributes
 * @param portAttr port attributes
 * @param gids     the port's non-zero GIDs
 * @param gidIndex the GID index used as source GID
 * @param software true for the software test device
 * @param gidTypes the type of each GID by index; empty when the library cannot tell (before rdma-core 32)
 */
public record DeviceInfo(String name, long nodeGuid, int port, DeviceAttributes device, PortAttributes portAttr,
                         List<VerbsDevice.IndexedGid> gids, int gidIndex, boolean software,
                         Map<Integer, GidType> gidTypes) {

    public DeviceInfo {
        gids = List.copyOf(gids);
        gidTypes = Map.copyOf(gidTypes);
    }

    /** A port whose GID types are unknown: the configured source GID is used towards every peer. */
    public DeviceInfo(String name, long nodeGuid, int port, DeviceAttributes device, PortAttributes portAttr,
                      List<VerbsDevice.IndexedGid> gids, int gidIndex, boolean software) {
        this(name, nodeGuid, port, device, portAttr, gids, gidIndex, software, Map.of());
    }

    /** The port's GID table read at activation: the filled slots and, where the library tells, their types. */
    public static DeviceInfo withGidTable(String name, long nodeGuid, int port, DeviceAttributes device,
                                          PortAttributes portAttr, GidTable table, int gidIndex, boolean software) {
        return new DeviceInfo(name, nodeGuid, port, device, portAttr, table.gids(), gidIndex, software, table.types());
    }

    /**
     * The source GID index towards a peer that names {@code peerGid}: the configured one, unless the peer's GID
     * is of another family (link-local = RoCE v1, IPv4-mapped = RoCE v2) than it; see {@link SourceGid}.
     */
    public int sourceGidIndexFor(Gid peerGid) {
        return SourceGid.choose(gids, gidTypes, gidIndex, peerGid);
    }

    /** The GID at {@code index}, or {@link Gid#ZERO} if that slot is empty. */
    public Gid gidAt(int index) {
        for (VerbsDevice.IndexedGid g : gids) {
            if (g.index() == index) {
                return g.gid();
            }
        }
        return Gid.ZERO;
    }

    public PortState portState() {
        return PortState.fromCode(portAttr.state());
    }

    public LinkLayer linkLayer() {
        return LinkLayer.fromCode(portAttr.linkLayer());
    }

    /** The port's active MTU; an out-of-range value from a driver reads as the smallest, 256. */
    public Mtu activeMtu() {
        int code = portAttr.activeMtu();
        return code >= Mtu.MTU_256.code() && code <= Mtu.MTU_4096.code() ? Mtu.fromCode(code) : Mtu.MTU_256;
    }

    /** The source GID, or {@link Gid#ZERO} if the port has none at {@link #gidIndex()}. */
    public Gid gid() {
        return gidAt(gidIndex);
    }

    public String transportName() {
        return "verbs:" + name;
    }
}
