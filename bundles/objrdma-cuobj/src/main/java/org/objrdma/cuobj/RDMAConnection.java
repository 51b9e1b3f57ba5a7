package org.objrdma.cuobj;

import java.net.InetSocketAddress;
import java.util.Objects;
import org.objrdma.api.transport.EndpointInfo;

/**
 * {@code RDMAConnection}, the base class of {@link CuObjServer}, kept for source compatibility with cuObject
 * 1.x callers (2.x deleted it). Applications construct {@link CuObjServer} and use it directly.
 *
 * <p>It holds the address the server was given and {@link #params}, the tunables. {@link #startRDMASession()}
 * returns 0 when the session is up ({@code isConnected()}) and tries to start it otherwise; it is what the
 * server's constructor calls. {@link #closeRDMASession()} ends the session (idempotent). The connection
 * handles of the C API ({@code rdma_cm_id*}) have no counterpart: {@link #getChannelIP(Object)} and
 * {@link #getChannelPort(Object)} accept a client's {@link EndpointInfo.Tcp} or {@link InetSocketAddress}.
 */
public abstract class RDMAConnection {

    /** The tunables ({@code params} in C). A server reads them when its session starts. */
    public final CuObjRDMATunable params;

    final String ip;
    final int port;

    /** Stores the address; nothing is started here. */
    protected RDMAConnection(String ip, int port, CuObjRDMATunable params) {
        this.ip = ip;
        this.port = port;
        this.params = new CuObjRDMATunable(Objects.requireNonNull(params, "params"));
    }

    /** Starts the session if it is not up. Returns 0 on success, -1 if the address or a tunable is invalid or no key is known. */
    public abstract int startRDMASession();

    /** Ends the session if one is up; registered buffers stay registered. Idempotent. */
    public abstract void closeRDMASession();

    /** Copies {@code config} into {@link #params}; a running session keeps its channel count and agent key until restarted. */
    public void initRDMAConfigParams(CuObjRDMATunable config) {
        CuObjRDMATunable copy = new CuObjRDMATunable(Objects.requireNonNull(config, "config"));
        synchronized (params) {
            copyTunable(copy, params);
        }
    }

    private static void copyTunable(CuObjRDMATunable from, CuObjRDMATunable to) {
        to.setNumDcis(from.getNumDcis());
        to.setCqDepth(from.getCqDepth());
        to.setDcKey(from.getDcKey());
        to.setIbvPollMaxCompEv(from.getIbvPollMaxCompEv());
        to.setServiceLevel(from.getServiceLevel());
        to.setTimeout(from.getTimeout());
        to.setHopLimit(from.getHopLimit());
        to.setPkeyIndex(from.getPkeyIndex());
        to.setMaxWr(from.getMaxWr());
        to.setMaxSge(from.getMaxSge());
        to.setDelayInterval(from.getDelayInterval());
        to.setDelayMode(from.getDelayMode());
        to.setQPResetOnFailure(from.getQPResetOnFailure());
        to.setRetryCount(from.getRetryCount());
        to.setTrafficClass(from.getTrafficClass());
        to.setMaxRdAtomic(from.getMaxRdAtomic());
        to.setProto(from.getProto());
        to.setDrainWaitMs(from.getDrainWaitMs());
        to.setAgentKey(from.getAgentKey());
        to.setAgentKeyFromDcKey(from.isAgentKeyFromDcKey());
        to.setTransferTimeoutMs(from.getTransferTimeoutMs());
        to.setConnectionCacheSize(from.getConnectionCacheSize());
    }

    /** Copies the current tunables into {@code param}, which must not be null. */
    public void getConfigTunableParam(CuObjRDMATunableParam param) {
        Objects.requireNonNull(param, "param");
        synchronized (params) {
            params.copyInto(param);
        }
    }

    /** Declared in C but not an application operation: does nothing. */
    public void handleDisconnectEvent(Object connection) {
        // nothing: connections to client agents are dropped and redialed by the server itself
    }

    /** The IP address (text form, IPv4 or IPv6) of a client endpoint; this server's address for null; else null. */
    public String getChannelIP(Object connection) {
        InetSocketAddress a = socketAddress(connection);
        if (a != null) {
            return a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
        }
        return connection == null ? ip : null;
    }

    /** The port of a client endpoint; this server's port for null; else -1. */
    public int getChannelPort(Object connection) {
        InetSocketAddress a = socketAddress(connection);
        if (a != null) {
            return a.getPort();
        }
        return connection == null ? port : -1;
    }

    private static InetSocketAddress socketAddress(Object connection) {
        if (connection instanceof EndpointInfo.Tcp t) {
            return t.address();
        }
        return connection instanceof InetSocketAddress a ? a : null;
    }
}
