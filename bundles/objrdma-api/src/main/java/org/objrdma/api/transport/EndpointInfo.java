package org.objrdma.api.transport;

import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What a peer needs to connect to one side of a {@link Channel}: an immutable value.
 *
 * <p><b>Open set.</b> Every transport has its own kind of endpoint, named by {@link #kind()}; the two built in are
 * {@link Verbs} ({@value Verbs#KIND}) and {@link Tcp} ({@value Tcp#KIND}), and a new transport (DC, or another)
 * adds its own value type implementing this interface in its own bundle, without a change here. Consumers never
 * branch over a closed list of kinds: what every kind has is on this interface ({@link #queueNumber()},
 * {@link #withQueue}, {@link #socketAddress()}, {@link #initialPsn()}), and code that needs one kind's fields narrows with
 * {@link #as(Class)}, which is typed (no cast, no map of properties). Each transport understands its own kind
 * and refuses others with {@link TransportError#INVALID_ARGUMENT}.
 *
 * <p>The wire forms (the 88-hex hipobj-rc-v2 token, the 81-hex cuObject descriptor and their TCP variants) are
 * codecs over these values, one per wire form and kind, kept by the bundle that speaks those protocols
 * (objrdma-wire); a new kind registers its codec there.
 */
public interface EndpointInfo {

    /**
     * Which transport understands this endpoint: a short stable name ({@value Verbs#KIND}, {@value Tcp#KIND}), the
     * value a transport publishes in {@link Transport#PROPERTY_ENDPOINT_KIND}.
     */
    String kind();

    /** The number that names the queue on the peer: a verbs QPN, a TCP channel id. */
    long queueNumber();

    /** The largest {@link #queueNumber()} this kind can name (verbs: 2^24 - 1; TCP: 2^32 - 1). */
    long maxQueueNumber();

    /**
     * This endpoint naming another queue of the same peer: hipobj-rc-v2's READY names the client queue (and verbs
     * its PSN) that PREPARE's endpoint left open. Kinds without a PSN ignore {@code psn}.
     *
     * @throws IllegalArgumentException if {@code queueNumber} is outside 0..{@link #maxQueueNumber()} or the PSN
     *         does not fit the kind
     */
    EndpointInfo withQueue(long queueNumber, int psn);

    /** The initial packet sequence number, for kinds that have one (verbs); empty otherwise. */
    default OptionalInt initialPsn() {
        return OptionalInt.empty();
    }

    /**
     * The IP socket address a dialer contacts to reach this endpoint (TCP: the memory agent), or empty when the
     * endpoint is reached another way (verbs: through the fabric by GID/LID). Servers judge it against their address
     * policy before dialing.
     */
    default Optional<InetSocketAddress> socketAddress() {
        return Optional.empty();
    }

    /** This endpoint as {@code type} if it is one, else empty: the typed way to reach one kind's own fields. */
    default <E extends EndpointInfo> Optional<E> as(Class<E> type) {
        return type.isInstance(this) ? Optional.of(type.cast(this)) : Optional.empty();
    }

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
        /** The {@link #kind()} of verbs RC endpoints. */
        public static final String KIND = "verbs-rc";

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
        public String kind() {
            return KIND;
        }

        @Override
        public long queueNumber() {
            return qpn;
        }

        @Override
        public long maxQueueNumber() {
            return 0xFF_FFFF;
        }

        @Override
        public Verbs withQueue(long queueNumber, int psn) {
            if (queueNumber < 0 || queueNumber > maxQueueNumber()) {
                throw new IllegalArgumentException("a verbs QPN is 24 bits, was " + queueNumber);
            }
            return new Verbs((int) queueNumber, psn, gid, lid, port, mtu);
        }

        @Override
        public OptionalInt initialPsn() {
            return OptionalInt.of(psn);
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
        /** The {@link #kind()} of TCP transport endpoints. */
        public static final String KIND = "tcp";

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
        public String kind() {
            return KIND;
        }

        @Override
        public long queueNumber() {
            return channelId;
        }

        @Override
        public long maxQueueNumber() {
            return 0xFFFF_FFFFL;
        }

        /** The same agent and key, channel {@code queueNumber}; TCP has no PSN. */
        @Override
        public Tcp withQueue(long queueNumber, int psn) {
            if (queueNumber < 0 || queueNumber > maxQueueNumber()) {
                throw new IllegalArgumentException("a TCP channel id is 0..2^32 - 1, was " + queueNumber);
            }
            return new Tcp(address, queueNumber, key);
        }

        @Override
        public Optional<InetSocketAddress> socketAddress() {
            return Optional.of(address);
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
