package org.objrdma.wire;

import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * One literal CIDR block of an {@link AddressPolicy} list (allow, deny, or the built-in refusals). IPv4-mapped
 * blocks are stored as the IPv4 block they map, so {@code ::ffff:10.0.0.0/104} and {@code 10.0.0.0/8} are one
 * block. Immutable.
 */
record Cidr(byte[] network, int prefix) {
    /** A block this code names itself; a bad one is a programming error. */
    static Cidr of(String entry) {
        TokenResult<Cidr> c = parse(entry);
        if (!c.isOk()) {
            throw new IllegalArgumentException(c.detail());
        }
        return c.value();
    }

    static TokenResult<Cidr> parse(String entry) {
        int slash = entry.indexOf('/');
        String ip = slash < 0 ? entry : entry.substring(0, slash);
        InetAddress a = literal(ip);
        if (a == null) {
            return TokenResult.error(TokenError.BAD_CIDR, "'" + entry + "' is not a literal IPv4 or IPv6 address"
                    + " (host names are not resolved)");
        }
        a = EmbeddedIpv4.unmapped(a);
        byte[] raw = a.getAddress();
        int bits = raw.length * 8;
        int prefix = bits;
        if (slash >= 0) {
            String p = entry.substring(slash + 1);
            if (!p.matches("\\d{1,3}") || Integer.parseInt(p) > bits) {
                return TokenResult.error(TokenError.BAD_CIDR, "'" + entry + "': the prefix length must be 0.."
                        + bits);
            }
            prefix = Integer.parseInt(p);
        }
        for (int bit = prefix; bit < bits; bit++) {
            if ((raw[bit / 8] & (0x80 >>> (bit % 8))) != 0) {
                return TokenResult.error(TokenError.BAD_CIDR, "'" + entry + "' has host bits set below /" + prefix);
            }
        }
        return TokenResult.ok(new Cidr(raw, prefix));
    }

    private static InetAddress literal(String ip) {
        if (ip.isEmpty() || ip.indexOf('%') >= 0 || ip.indexOf('[') >= 0) {
            return null;
        }
        try {
            if (ip.indexOf(':') >= 0) {
                return java.net.Inet6Address.ofLiteral(ip);
            }
            if (!ip.matches("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}")) {
                return null;
            }
            return Inet4Address.ofLiteral(ip);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    boolean contains(InetAddress a) {
        byte[] raw = a.getAddress();
        if (raw.length != network.length) {
            return false;
        }
        for (int bit = 0; bit < prefix; bit++) {
            int mask = 0x80 >>> (bit % 8);
            if ((raw[bit / 8] & mask) != (network[bit / 8] & mask)) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        try {
            return InetAddress.getByAddress(network).getHostAddress() + "/" + prefix;
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
