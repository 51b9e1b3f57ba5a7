package org.objrdma.wire;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * The IPv4 addresses an IPv6 address carries, and so reaches: a dial to {@code 64:ff9b::7f00:1} through a NAT64
 * gateway lands on {@code 127.0.0.1}, one to {@code 2002:a9fe:a9fe::1} through a 6to4 relay on
 * {@code 169.254.169.254}. {@link AddressPolicy} judges each of them as well as the IPv6 address itself, so an
 * embedded form cannot smuggle a refused IPv4 address past it.
 *
 * <p>Forms read: IPv4-mapped {@code ::ffff:0:0/96}, IPv4-translated {@code ::ffff:0:0:0/96} (RFC 2765) and
 * IPv4-compatible {@code ::/96} (low 32 bits), the NAT64
 * well-known prefix {@code 64:ff9b::/96} (RFC 6052; low 32 bits), 6to4 {@code 2002::/16} (bits 16..47, RFC 3056)
 * and Teredo {@code 2001::/32} (the server at bits 32..63, the client obfuscated in the low 32 bits, RFC 4380).
 * The local-use NAT64 prefix {@code 64:ff9b:1::/48} puts the IPv4 address where its operator chose; the policy
 * refuses that block as a whole instead.
 */
final class EmbeddedIpv4 {
    /** An IPv4 address found inside an IPv6 one, and the form that carried it (for the refusal's detail). */
    record Found(InetAddress ipv4, String form) {
    }

    private EmbeddedIpv4() {
    }

    /** {@code ::ffff:a.b.c.d} as {@code a.b.c.d}; every other address as is. */
    static InetAddress unmapped(InetAddress a) {
        byte[] raw = a.getAddress();
        if (raw.length == 16 && zero(raw, 0, 10) && raw[10] == (byte) 0xFF && raw[11] == (byte) 0xFF) {
            return ipv4(raw, 12, 0);
        }
        return a;
    }

    /** The IPv4 addresses {@code a} carries (none for an IPv4 address or a plain IPv6 one). */
    static List<Found> in(InetAddress a) {
        byte[] raw = a.getAddress();
        List<Found> out = new ArrayList<>(2);
        if (raw.length != 16) {
            return out;
        }
        if (zero(raw, 0, 10) && raw[10] == (byte) 0xFF && raw[11] == (byte) 0xFF) {
            out.add(new Found(ipv4(raw, 12, 0), "IPv4-mapped ::ffff:0:0/96"));
        } else if (zero(raw, 0, 8) && raw[8] == (byte) 0xFF && raw[9] == (byte) 0xFF && raw[10] == 0 && raw[11] == 0) {
            out.add(new Found(ipv4(raw, 12, 0), "IPv4-translated ::ffff:0:0:0/96"));
        } else if (zero(raw, 0, 12)) {
            out.add(new Found(ipv4(raw, 12, 0), "IPv4-compatible ::/96"));
        } else if (raw[0] == 0 && raw[1] == 0x64 && raw[2] == (byte) 0xFF && raw[3] == (byte) 0x9B
                && zero(raw, 4, 12)) {
            out.add(new Found(ipv4(raw, 12, 0), "NAT64 64:ff9b::/96"));
        } else if (raw[0] == 0x20 && raw[1] == 0x02) {
            out.add(new Found(ipv4(raw, 2, 0), "6to4 2002::/16"));
        } else if (raw[0] == 0x20 && raw[1] == 0x01 && raw[2] == 0 && raw[3] == 0) {
            out.add(new Found(ipv4(raw, 4, 0), "Teredo 2001::/32 (server)"));
            out.add(new Found(ipv4(raw, 12, 0xFF), "Teredo 2001::/32 (client)"));
        }
        return out;
    }

    private static boolean zero(byte[] raw, int from, int to) {
        for (int i = from; i < to; i++) {
            if (raw[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private static InetAddress ipv4(byte[] raw, int at, int xor) {
        byte[] v4 = new byte[4];
        for (int i = 0; i < 4; i++) {
            v4[i] = (byte) (raw[at + i] ^ xor);
        }
        try {
            return InetAddress.getByAddress(v4);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("4 bytes always form an address", e);
        }
    }
}
