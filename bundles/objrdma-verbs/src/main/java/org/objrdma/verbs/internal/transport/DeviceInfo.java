package org.objrdma.verbs.internal.transport;

import java.util.List;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.Mtu;
import org.objrdma.verbs.LinkLayer;
import org.objrdma.verbs.PortState;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.internal.ffi.DeviceAttributes;
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
 */
public record DeviceInfo(String name, long nodeGuid, int port, DeviceAttributes device, PortAttributes portAttr,
                         List<VerbsDevice.IndexedGid> gids, int gidIndex, boolean software) {

    public DeviceInfo {
        gids = List.copyOf(gids);
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
        for (VerbsDevice.IndexedGid g : gids) {
            if (g.index() == gidIndex) {
                return g.gid();
            }
        }
        return Gid.ZERO;
    }

    public String transportName() {
        return "verbs:" + name;
    }
}
