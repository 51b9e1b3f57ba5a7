package org.objrdma.api.transport;

import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * What a peer needs to connect to one side of a {@link Channel}: an immutable value.
 *
 * <p>Each transport understands its own kind and refuses the other with
 * {@link TransportError#INVALID_ARGUMENT}. The wire forms (the 88-hex hipobj-rc-v2 token, the
 * 81-hex cuObject descriptor and their TCP variants) are codecs over these values, kept by the
 * bundles that speak those protocols.
 */
public sealed interface EndpointInfo permits EndpointInfo.Verbs, EndpointInfo.Tcp {

    /** The level of transport that understands this endpoint. */
    TransportLevel level();

    /**
     * A verbs RC queue pair.
     *
     * @param qpn  queue pair number, 24 bits
     * @param psn  initial packet sequence number, 24 bits
     * @param gid  port GID (the RTR destination for RoCE and routed IB)
     * @param lid  port LID (InfiniBand), 0 for RoCE
     * @param port port number, 1-based
     * @param mtu  path MTU the side can use
     */
    record Verbs(int qpn, int psn, Gid gid, int lid, int port, Mtu mtu) implements EndpointInfo {
        public Verbs {
            if ((qpn & ~0xFFFFFF) != 0 || (psn & ~0xFFFFFF) != 0) {
                throw new IllegalArgumentException("qpn and psn are 24-bit values");
            }
            if ((lid & ~0xFFFF) != 0 || port < 1 || port > 255) {
                throw new IllegalArgumentException("lid must fit 16 bits and port be 1..255");
            }
            Objects.requireNonNull(gid, "gid");
            Objects.requireNonNull(mtu, "mtu");
        }

        @Override
        public TransportLevel level() {
            return TransportLevel.VERBS_RC;
        }
    }

    /**
     * A channel of the TCP transport: the memory agent's socket address, the channel number on that
     * agent and the access key the agent demands in the handshake.
     *
     * @param address   where the peer's memory agent listens (IPv4 or IPv6)
     * @param channelId channel number on that agent
     * @param key       access key, 16 to 64 bytes, handed out by the control plane
     */
    record Tcp(InetSocketAddress address, long channelId, byte[] key) implements EndpointInfo {
        public Tcp {
            Objects.requireNonNull(address, "address");
            Objects.requireNonNull(key, "key");
            if (key.length < 16 || key.length > 64) {
                throw new IllegalArgumentException("access key must be 16..64 bytes, was " + key.length);
            }
            key = key.clone();
        }

        /** A copy of the key. */
        @Override
        public byte[] key() {
            return key.clone();
        }

        @Override
        public TransportLevel level() {
            return TransportLevel.TCP;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Tcp t && address.equals(t.address) && channelId == t.channelId
                    && MessageDigest.isEqual(key, t.key);
        }

        @Override
        public int hashCode() {
            return Objects.hash(address, channelId, Arrays.hashCode(key));
        }

        /** Never prints the key. */
        @Override
        public String toString() {
            return "Tcp[" + address + ", channel " + channelId + ", key "
                    + HexFormat.of().formatHex(key, 0, 2) + "…]";
        }
    }
}
