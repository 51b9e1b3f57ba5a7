package org.objrdma.wire;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.objrdma.api.transport.EndpointInfo;

/**
 * Which addresses a server may dial when a client names them (a cuObject descriptor's agent, a PREPARE endpoint).
 * A client controls those bytes, so without a policy a descriptor could steer the server into connecting to
 * services of its own host. Refused unless the allow list names them: the unspecified address ({@code 0.0.0.0},
 * {@code ::}), loopback ({@code 127.0.0.0/8}, {@code ::1}), multicast, and every address of the server host's own
 * interfaces. IPv4-mapped IPv6 addresses are judged as the IPv4 address they map.
 *
 * <p>The allow list ({@link #parse}) is a comma- or space-separated list of literal CIDR blocks
 * ({@code 127.0.0.0/8}, {@code ::1/128}, {@code 10.1.2.3}); a block without a prefix length is one address. It only
 * lifts the refusals above; addresses that are neither loopback nor the host's own are allowed without it.
 *
 * <p>The host's own addresses are read from {@link NetworkInterface} when the policy is built and again when
 * {@link #refresh()} is called (interfaces that appear later are not known before). Immutable apart from that
 * snapshot; safe from any thread.
 */
public final class AddressPolicy {
    /** No allow list: loopback, unspecified, multicast and the host's own addresses are refused. */
    public static AddressPolicy strict() {
        return new AddressPolicy(List.of(), AddressPolicy::hostAddresses);
    }

    private final List<Cidr> allowed;
    private final Supplier<Set<InetAddress>> ownAddresses;
    private volatile Set<InetAddress> own;

    private AddressPolicy(List<Cidr> allowed, Supplier<Set<InetAddress>> ownAddresses) {
        this.allowed = List.copyOf(allowed);
        this.ownAddresses = ownAddresses;
        this.own = Set.copyOf(ownAddresses.get());
    }

    /**
     * The policy with the allow list {@code text} (null or blank: none). Refusals are {@link TokenError#BAD_CIDR}
     * naming the first bad entry: not a literal address (host names are refused, nothing is resolved), a prefix
     * length outside 0..32 (IPv4) or 0..128 (IPv6), or host bits set below the prefix.
     */
    public static TokenResult<AddressPolicy> parse(String text) {
        return parse(text, AddressPolicy::hostAddresses);
    }

    /** As {@link #parse(String)}, with the host's own addresses from {@code ownAddresses} (tests). */
    public static TokenResult<AddressPolicy> parse(String text, Supplier<Set<InetAddress>> ownAddresses) {
        Objects.requireNonNull(ownAddresses, "ownAddresses");
        List<Cidr> blocks = new ArrayList<>();
        if (text != null) {
            for (String entry : text.split("[,\\s]+")) {
                if (entry.isEmpty()) {
                    continue;
                }
                TokenResult<Cidr> c = Cidr.parse(entry);
                if (!c.isOk()) {
                    return TokenResult.error(c.error(), c.detail());
                }
                blocks.add(c.value());
            }
        }
        return TokenResult.ok(new AddressPolicy(blocks, ownAddresses));
    }

    /** The allow list as given, normalised ({@code a.b.c.d/n} and {@code x::/n}, comma-separated). */
    public String allowList() {
        return String.join(",", allowed.stream().map(Cidr::toString).toList());
    }

    /** Reads the host's interface addresses again. */
    public void refresh() {
        own = Set.copyOf(ownAddresses.get());
    }

    /** {@code address} if the server may dial it, else {@link TokenError#ADDRESS_NOT_ALLOWED} saying why. */
    public TokenResult<InetAddress> check(InetAddress address) {
        Objects.requireNonNull(address, "address");
        InetAddress a = unmapped(address);
        String why = a.isAnyLocalAddress() ? "the unspecified address"
                : a.isLoopbackAddress() ? "a loopback address"
                : a.isMulticastAddress() ? "a multicast address"
                : own.contains(a) ? "an address of the server's own host"
                : null;
        if (why == null || allows(a)) {
            return TokenResult.ok(address);
        }
        return TokenResult.error(TokenError.ADDRESS_NOT_ALLOWED, a.getHostAddress() + " is " + why
                + " and not in the allow list" + (allowed.isEmpty() ? " (empty)" : " " + allowList()));
    }

    /** As {@link #check(InetAddress)} for a socket address; an unresolved one is refused (nothing is resolved). */
    public TokenResult<InetSocketAddress> check(InetSocketAddress address) {
        Objects.requireNonNull(address, "address");
        if (address.getAddress() == null) {
            return TokenResult.error(TokenError.ADDRESS_NOT_ALLOWED, "unresolved address " + address.getHostString());
        }
        return check(address.getAddress()).map(ok -> address);
    }

    /**
     * As {@link #check(InetSocketAddress)} for the IP address an endpoint makes a dialer contact
     * ({@link EndpointInfo#socketAddress()}); an endpoint without one (verbs) is not the policy's concern and passes.
     */
    public TokenResult<EndpointInfo> check(EndpointInfo endpoint) {
        Objects.requireNonNull(endpoint, "endpoint");
        return endpoint.socketAddress().map(a -> check(a).map(ok -> endpoint)).orElse(TokenResult.ok(endpoint));
    }

    private boolean allows(InetAddress a) {
        for (Cidr c : allowed) {
            if (c.contains(a)) {
                return true;
            }
        }
        return false;
    }

    /** {@code ::ffff:a.b.c.d} as {@code a.b.c.d}; every other address as is. */
    static InetAddress unmapped(InetAddress a) {
        byte[] raw = a.getAddress();
        if (raw.length == 16) {
            for (int i = 0; i < 10; i++) {
                if (raw[i] != 0) {
                    return a;
                }
            }
            if (raw[10] == (byte) 0xFF && raw[11] == (byte) 0xFF) {
                try {
                    return InetAddress.getByAddress(new byte[] {raw[12], raw[13], raw[14], raw[15]});
                } catch (java.net.UnknownHostException e) {
                    throw new IllegalStateException("4 bytes always form an address", e);
                }
            }
        }
        return a;
    }

    /** Every address of every interface of this host, up or down (down ones may come up). */
    static Set<InetAddress> hostAddresses() {
        Set<InetAddress> out = new HashSet<>();
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                    out.add(withoutScope(a));
                }
            }
        } catch (SocketException e) {
            // no interface list: loopback and unspecified are still refused by their kind
        }
        return out;
    }

    private static InetAddress withoutScope(InetAddress a) {
        try {
            return a instanceof Inet4Address ? a : InetAddress.getByAddress(a.getAddress());
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException("16 bytes always form an address", e);
        }
    }

    /** Equal policies have the same allow list (the host's own addresses are the host's, not the policy's). */
    @Override
    public boolean equals(Object o) {
        return o instanceof AddressPolicy other && allowList().equals(other.allowList());
    }

    @Override
    public int hashCode() {
        return allowList().hashCode();
    }

    @Override
    public String toString() {
        return "AddressPolicy[allow " + (allowed.isEmpty() ? "nothing extra" : allowList()) + "]";
    }

    /** One CIDR block of the allow list. */
    record Cidr(byte[] network, int prefix) {
        static TokenResult<Cidr> parse(String entry) {
            int slash = entry.indexOf('/');
            String ip = slash < 0 ? entry : entry.substring(0, slash);
            InetAddress a = literal(ip);
            if (a == null) {
                return TokenResult.error(TokenError.BAD_CIDR, "'" + entry + "' is not a literal IPv4 or IPv6 address"
                        + " (host names are not resolved)");
            }
            a = unmapped(a);
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
}
