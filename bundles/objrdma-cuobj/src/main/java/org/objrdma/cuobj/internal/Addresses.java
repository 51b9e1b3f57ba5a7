package org.objrdma.cuobj.internal;

import java.net.Inet6Address;

/** The server address rule, shared by the facade and the configuration. */
public final class Addresses {
    private Addresses() {
    }

    /**
     * True for a literal IPv4 address (four decimal octets) or IPv6 address without brackets (a zone such as
     * {@code %eth0} allowed). Host names are refused: the server must not depend on name resolution.
     */
    public static boolean isLiteral(String ip) {
        if (ip == null || ip.isEmpty() || ip.length() > 64) {
            return false;
        }
        if (ip.indexOf(':') >= 0) {
            if (ip.startsWith("[")) {
                return false; // C takes the address without brackets
            }
            try {
                Inet6Address.ofLiteral(ip); // parses, never resolves
                return true;
            } catch (IllegalArgumentException e) {
                return false;
            }
        }
        return ip.matches("(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
    }
}
