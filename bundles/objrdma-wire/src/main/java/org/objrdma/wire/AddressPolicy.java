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
 * services of its own host or of its network (a cloud metadata service at {@code 169.254.169.254}, say).
 *
 * <p>Refused unless the allow list names them:
 * <ul>
 *   <li>the built-in blocks ({@link #BUILT_IN}): IPv4 {@code 0.0.0.0/8} (the unspecified address and "this
 *       network"), loopback {@code 127.0.0.0/8}, link-local {@code 169.254.0.0/16}, multicast {@code 224.0.0.0/4},
 *       the limited broadcast {@code 255.255.255.255} and the rest of the reserved {@code 240.0.0.0/4}; IPv6
 *       {@code ::}, {@code ::1}, link-local {@code fe80::/10}, site-local {@code fec0::/10}, multicast
 *       {@code ff00::/8} and the local-use NAT64 prefix {@code 64:ff9b:1::/48};</li>
 *   <li>every address of the server host's own interfaces;</li>
 *   <li>the deny list, when configured: literal CIDR blocks and the word {@code private}, which stands for
 *       {@link #PRIVATE} ({@code 10.0.0.0/8}, {@code 172.16.0.0/12}, {@code 192.168.0.0/16},
 *       {@code 100.64.0.0/10}, {@code fc00::/7}).</li>
 * </ul>
 * An IPv6 address that carries an IPv4 address (IPv4-mapped, -translated or -compatible, NAT64 {@code 64:ff9b::/96}, 6to4,
 * Teredo: see {@link EmbeddedIpv4}) is refused when the IPv4 address it carries is.
 *
 * <p>The allow list ({@link #parse}) is a comma- or space-separated list of literal CIDR blocks
 * ({@code 127.0.0.0/8}, {@code ::1/128}, {@code 10.1.2.3}); a block without a prefix length is one address. It is
 * the exception to every refusal above (the deny list included), and allows nothing else: addresses no rule
 * refuses are allowed without it.
 *
 * <p>The host's own addresses are read from {@link NetworkInterface} when the policy is built and again when
 * {@link #refresh()} is called (interfaces that appear later are not known before). Immutable apart from that
 * snapshot; safe from any thread.
 */
public final class AddressPolicy {
    /** The deny-list word that stands for {@link #PRIVATE}. */
    public static final String PRIVATE_WORD = "private";

    /** The blocks {@value #PRIVATE_WORD} stands for in a deny list: RFC 1918, RFC 6598 shared space, RFC 4193 ULA. */
    public static final List<String> PRIVATE = List.of("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16",
            "100.64.0.0/10", "fc00::/7");

    /** The blocks refused by every policy unless its allow list names them, and why. */
    public static final List<String> BUILT_IN = List.of("0.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16",
            "224.0.0.0/4", "255.255.255.255/32", "240.0.0.0/4", "::/128", "::1/128", "fe80::/10", "fec0::/10",
            "ff00::/8", "64:ff9b:1::/48");

    private static final List<String> BUILT_IN_WHY = List.of("in 0.0.0.0/8 (the unspecified address, 'this network')",
            "a loopback address", "a link-local address (169.254.0.0/16, cloud metadata services live there)",
            "a multicast address", "the limited broadcast address", "in the reserved block 240.0.0.0/4",
            "the unspecified address", "a loopback address", "a link-local address (fe80::/10)",
            "a site-local address (fec0::/10)", "a multicast address",
            "in the local-use NAT64 prefix 64:ff9b:1::/48 (its embedded IPv4 address cannot be located)");

    private static final List<Cidr> BUILT_IN_BLOCKS = BUILT_IN.stream().map(Cidr::of).toList();

    /** No allow or deny list: the built-in blocks and the host's own addresses are refused. */
    public static AddressPolicy strict() {
        return new AddressPolicy(List.of(), List.of(), AddressPolicy::hostAddresses);
    }

    private final List<Cidr> allowed;
    private final List<Cidr> denied;
    private final Supplier<Set<InetAddress>> ownAddresses;
    private volatile Set<InetAddress> own;

    private AddressPolicy(List<Cidr> allowed, List<Cidr> denied, Supplier<Set<InetAddress>> ownAddresses) {
        this.allowed = List.copyOf(allowed);
        this.denied = List.copyOf(denied);
        this.ownAddresses = ownAddresses;
        this.own = Set.copyOf(ownAddresses.get());
    }

    /**
     * The policy with the allow list {@code text} (null or blank: none) and no deny list. Refusals are
     * {@link TokenError#BAD_CIDR} naming the first bad entry: not a literal address (host names are refused,
     * nothing is resolved), a prefix length outside 0..32 (IPv4) or 0..128 (IPv6), or host bits set below the prefix.
     */
    public static TokenResult<AddressPolicy> parse(String text) {
        return parse(text, null, AddressPolicy::hostAddresses);
    }

    /**
     * The policy with the allow list {@code allow} and the deny list {@code deny} (each null or blank: none). The
     * deny list takes the same blocks as the allow list and the word {@value #PRIVATE_WORD}; refusals are
     * {@link TokenError#BAD_CIDR} naming the list and its first bad entry.
     */
    public static TokenResult<AddressPolicy> parse(String allow, String deny) {
        return parse(allow, deny, AddressPolicy::hostAddresses);
    }

    /** As {@link #parse(String)}, with the host's own addresses from {@code ownAddresses} (tests). */
    public static TokenResult<AddressPolicy> parse(String text, Supplier<Set<InetAddress>> ownAddresses) {
        return parse(text, null, ownAddresses);
    }

    /** As {@link #parse(String, String)}, with the host's own addresses from {@code ownAddresses} (tests). */
    public static TokenResult<AddressPolicy> parse(String allow, String deny, Supplier<Set<InetAddress>> ownAddresses) {
        Objects.requireNonNull(ownAddresses, "ownAddresses");
        List<Cidr> allowBlocks = new ArrayList<>();
        TokenResult<Boolean> a = blocks(allow, false, allowBlocks);
        if (!a.isOk()) {
            return TokenResult.error(a.error(), "allow list: " + a.detail());
        }
        List<Cidr> denyBlocks = new ArrayList<>();
        TokenResult<Boolean> d = blocks(deny, true, denyBlocks);
        if (!d.isOk()) {
            return TokenResult.error(d.error(), "deny list: " + d.detail());
        }
        return TokenResult.ok(new AddressPolicy(allowBlocks, denyBlocks, ownAddresses));
    }

    /** Parses {@code text} into {@code out} (the word {@value #PRIVATE_WORD} only where {@code privateWord}); ok(true) if it was there. */
    private static TokenResult<Boolean> blocks(String text, boolean privateWord, List<Cidr> out) {
        boolean sawPrivate = false;
        if (text != null) {
            for (String entry : text.split("[,\\s]+")) {
                if (entry.isEmpty()) {
                    continue;
                }
                if (privateWord && entry.equalsIgnoreCase(PRIVATE_WORD)) {
                    if (!sawPrivate) {
                        PRIVATE.forEach(p -> out.add(Cidr.of(p)));
                    }
                    sawPrivate = true;
                    continue;
                }
                TokenResult<Cidr> c = Cidr.parse(entry);
                if (!c.isOk()) {
                    return TokenResult.error(c.error(), c.detail());
                }
                out.add(c.value());
            }
        }
        return TokenResult.ok(sawPrivate);
    }

    /** The allow list as given, normalised ({@code a.b.c.d/n} and {@code x::/n}, comma-separated). */
    public String allowList() {
        return String.join(",", allowed.stream().map(Cidr::toString).toList());
    }

    /** The deny list, normalised; the word {@value #PRIVATE_WORD} is shown as the blocks it stands for. */
    public String denyList() {
        return String.join(",", denied.stream().map(Cidr::toString).toList());
    }

    /** Reads the host's interface addresses again. */
    public void refresh() {
        own = Set.copyOf(ownAddresses.get());
    }

    /** {@code address} if the server may dial it, else {@link TokenError#ADDRESS_NOT_ALLOWED} saying why. */
    public TokenResult<InetAddress> check(InetAddress address) {
        Objects.requireNonNull(address, "address");
        InetAddress a = EmbeddedIpv4.unmapped(address);
        if (allows(a)) {
            return TokenResult.ok(address);
        }
        String why = refusal(a);
        if (why != null) {
            return refuse(a.getHostAddress() + " is " + why);
        }
        for (EmbeddedIpv4.Found f : EmbeddedIpv4.in(a)) {
            String inner = allows(f.ipv4()) ? null : refusal(f.ipv4());
            if (inner != null) {
                return refuse(a.getHostAddress() + " carries " + f.ipv4().getHostAddress() + " (" + f.form()
                        + "), which is " + inner);
            }
        }
        return TokenResult.ok(address);
    }

    private <T> TokenResult<T> refuse(String why) {
        return TokenResult.error(TokenError.ADDRESS_NOT_ALLOWED, why + " and not in the allow list"
                + (allowed.isEmpty() ? " (empty)" : " " + allowList()));
    }

    /** Why {@code a} (unmapped) is refused before the allow list is asked, or null. */
    private String refusal(InetAddress a) {
        for (int i = 0; i < BUILT_IN_BLOCKS.size(); i++) {
            if (BUILT_IN_BLOCKS.get(i).contains(a)) {
                return BUILT_IN_WHY.get(i);
            }
        }
        if (own.contains(a)) {
            return "an address of the server's own host";
        }
        for (Cidr c : denied) {
            if (c.contains(a)) {
                return "in the deny list's " + c;
            }
        }
        return null;
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
        return EmbeddedIpv4.unmapped(a);
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

    /** Equal policies have the same allow and deny lists (the host's own addresses are the host's, not the policy's). */
    @Override
    public boolean equals(Object o) {
        return o instanceof AddressPolicy other && allowList().equals(other.allowList())
                && denyList().equals(other.denyList());
    }

    @Override
    public int hashCode() {
        return allowList().hashCode() * 31 + denyList().hashCode();
    }

    @Override
    public String toString() {
        return "AddressPolicy[allow " + (allowed.isEmpty() ? "nothing extra" : allowList()) + ", deny "
                + (denied.isEmpty() ? "nothing extra" : denyList()) + "]";
    }
}
