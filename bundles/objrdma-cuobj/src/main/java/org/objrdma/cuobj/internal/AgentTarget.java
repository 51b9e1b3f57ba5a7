package org.objrdma.cuobj.internal;

import java.util.Arrays;
import org.objrdma.api.transport.Transport;
import org.objrdma.wire.CuObjDescriptor;

/**
 * A client memory agent channel as a descriptor names it, on one transport: the key of a cached connection.
 * Holds the raw descriptor fields so that a lookup allocates no address objects, and the agent key the
 * connection was (or will be) authenticated with: a connection made with one principal's key must never serve a
 * request made with another's, even to the same lane.
 */
public record AgentTarget(Transport transport, long gidHigh, long gidLow, int port, int channelId, byte[] agentKey) {

    /** The target of a descriptor that {@link CuObjDescriptor#isTcpAddressable()}, dialed with {@code agentKey}. */
    public static AgentTarget of(Transport transport, CuObjDescriptor d, byte[] agentKey) {
        return new AgentTarget(transport, d.gid().subnetPrefix(), d.gid().interfaceId(), d.lid(), d.targetNumber(),
                agentKey);
    }

    @Override
    public boolean equals(Object o) {
        // transports compare by identity: a replaced transport is another target even at the same address
        return o instanceof AgentTarget t && transport == t.transport && gidHigh == t.gidHigh && gidLow == t.gidLow
                && port == t.port && channelId == t.channelId && Arrays.equals(agentKey, t.agentKey);
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(transport) * 31 + Long.hashCode(gidHigh * 31 + gidLow) * 17 + port * 7 + channelId
                + Arrays.hashCode(agentKey);
    }
}
