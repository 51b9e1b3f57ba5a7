package org.objrdma.verbs.internal;

import java.util.Dictionary;
import java.util.HexFormat;
import java.util.Hashtable;
import java.util.List;
import org.objrdma.api.transport.Mtu;
import org.objrdma.verbs.LinkLayer;
import org.objrdma.verbs.PortState;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.internal.transport.DeviceInfo;

/** The {@link VerbsDevice} service: a device port as queried at activation; the port state follows its events. */
final class DeviceService implements VerbsDevice {
    private final DeviceInfo info;
    private volatile PortState portState;

    DeviceService(DeviceInfo info) {
        this.info = info;
        this.portState = info.portState();
    }

    /** An asynchronous event moved the port. */
    void portStateChanged(PortState state) {
        portState = state;
    }

    @Override
    public String name() {
        return info.name();
    }

    @Override
    public long nodeGuid() {
        return info.nodeGuid();
    }

    @Override
    public int port() {
        return info.port();
    }

    @Override
    public PortState portState() {
        return portState;
    }

    @Override
    public LinkLayer linkLayer() {
        return info.linkLayer();
    }

    @Override
    public Mtu activeMtu() {
        return info.activeMtu();
    }

    @Override
    public int lid() {
        return info.portAttr().lid();
    }

    @Override
    public List<IndexedGid> gids() {
        return info.gids();
    }

    @Override
    public int gidIndex() {
        return info.gidIndex();
    }

    @Override
    public int maxQp() {
        return info.device().maxQp();
    }

    @Override
    public int maxMr() {
        return info.device().maxMr();
    }

    @Override
    public int maxCqe() {
        return info.device().maxCqe();
    }

    @Override
    public boolean isSoftware() {
        return info.software();
    }

    @Override
    public String grantMechanism() {
        return info.device().memoryWindowsType2B() ? GRANTS_MEMORY_WINDOWS : GRANTS_SLICE_REGISTRATION;
    }

    @Override
    public int maxMw() {
        return info.device().maxMw();
    }

    /** The service properties ({@code PROPERTY_*}). */
    Dictionary<String, Object> properties() {
        Hashtable<String, Object> p = new Hashtable<>();
        p.put(PROPERTY_DEVICE_NAME, name());
        p.put(PROPERTY_NODE_GUID, HexFormat.of().toHexDigits(nodeGuid()));
        p.put(PROPERTY_PORT, port());
        p.put(PROPERTY_PORT_STATE, portState().name());
        p.put(PROPERTY_LINK_LAYER, linkLayer().name());
        p.put(PROPERTY_ACTIVE_MTU, activeMtu().bytes());
        p.put(PROPERTY_LID, lid());
        p.put(PROPERTY_GIDS, gids().stream().map(g -> g.gid().toHex()).toArray(String[]::new));
        p.put(PROPERTY_GID_INDEX, gidIndex());
        p.put(PROPERTY_MAX_QP, maxQp());
        p.put(PROPERTY_MAX_MR, maxMr());
        p.put(PROPERTY_MAX_CQE, maxCqe());
        p.put(PROPERTY_SOFTWARE, isSoftware());
        p.put(PROPERTY_GRANTS, grantMechanism());
        p.put(PROPERTY_MAX_MW, maxMw());
        return p;
    }

    @Override
    public String toString() {
        return "VerbsDevice[" + name() + " port " + port() + " " + portState() + " " + linkLayer() + " mtu "
                + activeMtu().bytes() + " guid " + HexFormat.of().toHexDigits(nodeGuid()) + "]";
    }
}
