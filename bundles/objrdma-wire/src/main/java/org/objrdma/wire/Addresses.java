package org.objrdma.wire;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import org.objrdma.api.transport.Gid;

/** IP address ↔ GID, the way RoCE v2 writes IPv4 addresses into GIDs. */
final class Addresses {
    private Addresses() {
    }

    /** IPv6 as is; IPv4 as the IPv4-mapped address {@code ::ffff:a.b.c.d}. The IPv6 scope id is lost. */
    static Gid gidOf(InetAddress address) {
        byte[] raw = address.getAddress();
        if (address instanceof Inet4Address) {
            ByteBuffer b = ByteBuffer.allocate(16);
            b.putLong(0).putShort((short) 0).putShort((short) 0xFFFF).put(raw);
            return Gid.fromBytes(b.array());
        }
        if (address instanceof Inet6Address) {
            return Gid.fromBytes(raw);
        }
        throw new IllegalArgumentException("not an IP address: " + address);
    }

    /** The address a GID names: IPv4-mapped GIDs give an IPv4 address, every other GID an IPv6 address. */
    static InetAddress addressOf(Gid gid) {
        try {
            return InetAddress.getByAddress(gid.toBytes()); // turns ::ffff:a.b.c.d into an Inet4Address
        } catch (UnknownHostException e) {
            throw new IllegalStateException("16 bytes always form an address", e);
        }
    }
}
