package org.objrdma.cuobj.internal;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.cuobj.CuObjRDMATunable;
import org.objrdma.wire.AddressPolicy;
import org.objrdma.wire.AgentKeys;
import org.objrdma.wire.DialPacing;

/**
 * What a started cuObject session holds: the shared agent key (null in per-principal mode), the channel table, the
 * connections to client agents and the limits a transfer applies. A server replaces it as a whole when it starts
 * and closes its session.
 */
public record ServerSession(byte[] agentKey, FacadeChannels channels, AgentConnections connections,
                            Duration transferTimeout, Duration connectTimeout, int maxSge, AddressPolicy addressPolicy,
                            DialPacing dialPacing) {

    /** Why a session cannot start on {@code ip:port} with {@code params}, or null. */
    public static String problem(String ip, int port, CuObjRDMATunable params) {
        if (!Addresses.isLiteral(ip)) {
            return "'" + ip + "' is not a literal IPv4 or IPv6 address (IPv6 without brackets)";
        }
        if (port < 0 || port > 0xFFFF) {
            return "port " + port + " is not 0..65535";
        }
        List<String> bad = params.validate();
        return bad.isEmpty() ? null : String.join("; ", bad);
    }

    /**
     * A session of valid tunables {@code p} ({@link #problem} returned null). The agent key is the tunables' own,
     * derived from the DC key, or {@code fallbackKey}'s (the component's, for the C-style constructors).
     */
    public static ServerSession start(CuObjRDMATunable p, Supplier<byte[]> fallbackKey, Supplier<Telemetry> telemetry) {
        DialPacing pacing = DialPacing.ofMillis(p.getDialFailureDelayMs());
        // timeout and retry_cnt, applied to the dial, which no failure may outlast (its answer is padded to it)
        Duration connectTimeout = pacing.dialTimeout(TcpTunables.dialTimeout(p));
        ChannelOptions options = new ChannelOptions((int) p.getCqDepth(), 1, p.getMaxSge(), connectTimeout);
        return new ServerSession(agentKeyOf(p, fallbackKey), new FacadeChannels(p.getNumDcis()),
                new AgentConnections(p.getConnectionCacheSize(), options, telemetry),
                Duration.ofMillis(p.getTransferTimeoutMs()), connectTimeout, p.getMaxSge(),
                AddressPolicy.parse(p.getAllowAddresses(), p.getDenyAddresses()).value(), pacing);
    }

    /** The shared key of tunables {@code p}: set, derived from the DC key, or the fallback; null for none. */
    public static byte[] sharedKeyOf(CuObjRDMATunable p) {
        if (p.getAgentKey() != null) {
            return p.getAgentKey();
        }
        return p.isAgentKeyFromDcKey() ? AgentKeys.fromDcKey(p.getDcKey()) : null;
    }

    private static byte[] agentKeyOf(CuObjRDMATunable p, Supplier<byte[]> fallbackKey) {
        byte[] own = sharedKeyOf(p);
        return own != null ? own : fallbackKey.get();
    }
}
