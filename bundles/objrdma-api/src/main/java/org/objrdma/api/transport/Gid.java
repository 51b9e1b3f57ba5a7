package org.objrdma.api.transport;

import java.net.Inet6Address;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.HexFormat;

/**
 * A 128-bit global identifier of an RDMA port ({@code union ibv_gid}), kept as two big-endian halves.
 *
 * @param subnetPrefix the first 8 bytes
 * @param interfaceId  the last 8 bytes
 */
public record Gid(long subnetPrefix, long interfaceId) {
    /** The all-zero GID. */
    public static final Gid ZERO = new Gid(0, 0);

    /** From the 16 raw bytes, network order. */
    public static Gid fromBytes(byte[] raw) {
        if (raw == null || raw.length != 16) {
            throw new IllegalArgumentException("a GID is 16 bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(raw);
        return new Gid(b.getLong(), b.getLong());
    }

    /** The 16 raw bytes, network order. */
    public byte[] toBytes() {
        return ByteBuffer.allocate(16).putLong(subnetPrefix).putLong(interfaceId).array();
    }

    /** 32 lower-case hex digits. */
    public String toHex() {
        return HexFormat.of().formatHex(toBytes());
    }

    /** The GID written as an IPv6 address, e.g. {@code fe80:0:0:0:2:c903:ab:cdef}; IPv4-mapped GIDs stay IPv6. */
    public String toIpv6String() {
        try {
            // Inet6Address directly: InetAddress.getByAddress turns an IPv4-mapped GID (RoCE v2) into an Inet4Address
            return Inet6Address.getByAddress(null, toBytes(), -1).getHostAddress();
        } catch (UnknownHostException e) {
            throw new IllegalStateException("16 bytes always form an IPv6 address", e);
        }
    }

    @Override
    public String toString() {
        return toIpv6String();
    }
}
