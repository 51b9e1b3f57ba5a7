package org.objrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The address policy's ranges, one row per address: the built-in refusals (link-local, broadcast, "this network",
 * reserved), IPv4 carried inside IPv6 (mapped, compatible, NAT64, 6to4, Teredo), and the optional deny list with its
 * {@code private} word. Each row says what the detail must name, so a refusal for the wrong reason fails too.
 */
class AddressPolicyRangesTest {

    private static final AddressPolicy STRICT = AddressPolicy.parse(null, null, Set::of).value();
    private static final AddressPolicy DENY_PRIVATE = AddressPolicy.parse(null, "private", Set::of).value();

    private static InetAddress ip(String literal) throws Exception {
        return InetAddress.getByName(literal); // literals only: nothing is resolved
    }

    @ParameterizedTest(name = "{0} refused: {1}")
    @CsvSource(delimiter = '|', textBlock = """
            169.254.169.254        | link-local
            169.254.0.1            | link-local
            fe80::1                | link-local
            febf:ffff::1           | link-local
            fec0::1                | site-local
            255.255.255.255        | limited broadcast
            240.0.0.1              | reserved
            0.0.0.0                | 0.0.0.0/8
            0.1.2.3                | 0.0.0.0/8
            ::                     | unspecified
            ::1                    | loopback
            127.0.0.1              | loopback
            224.0.0.1              | multicast
            ff02::1                | multicast
            ::ffff:169.254.169.254 | link-local
            ::ffff:127.0.0.1       | loopback
            ::169.254.169.254      | IPv4-compatible
            ::127.0.0.1            | IPv4-compatible
            ::ffff:0:7f00:1        | IPv4-translated
            64:ff9b::a9fe:a9fe     | NAT64
            64:ff9b::127.0.0.1     | NAT64
            64:ff9b::ffff:ffff     | NAT64
            64:ff9b:1::a00:1       | local-use NAT64
            2002:a9fe:a9fe::1      | 6to4
            2002:7f00:1::1         | 6to4
            2002:0:0::1            | 6to4
            2001:0:7f00:1::1       | Teredo 2001::/32 (server)
            2001:0:c000:201:0:0:80ff:fffe | Teredo 2001::/32 (client)
            """)
    void refusedByEveryPolicy(String address, String named) throws Exception {
        TokenResult<InetAddress> r = STRICT.check(ip(address));
        assertEquals(TokenError.ADDRESS_NOT_ALLOWED, r.error(), address);
        assertTrue(r.detail().contains(named), address + ": " + r.detail());
    }

    @ParameterizedTest(name = "{0} allowed")
    @CsvSource(textBlock = """
            192.0.2.11
            8.8.8.8
            10.1.2.3
            172.16.0.1
            192.168.1.1
            100.64.0.1
            fd00::10
            2001:db8::1
            64:ff9b::808:808
            2002:808:808::1
            ::ffff:192.0.2.11
            169.253.255.255
            169.255.0.0
            223.255.255.255
            fc00::1
            """)
    void allowedWithoutADenyList(String address) throws Exception {
        InetAddress a = ip(address);
        assertTrue(STRICT.check(a).isOk(), address + ": " + STRICT.check(a).detail());
    }

    @ParameterizedTest(name = "deny private: {0}")
    @CsvSource(textBlock = """
            10.0.0.1
            10.255.255.255
            172.16.0.1
            172.31.255.255
            192.168.0.1
            100.64.0.1
            100.127.255.255
            fc00::1
            fdff:ffff::1
            ::ffff:10.0.0.1
            64:ff9b::a00:1
            2002:c0a8:101::1
            """)
    void theDenyListsPrivateWordRefusesThePrivateRanges(String address) throws Exception {
        TokenResult<InetAddress> r = DENY_PRIVATE.check(ip(address));
        assertEquals(TokenError.ADDRESS_NOT_ALLOWED, r.error(), address);
        assertTrue(r.detail().contains("deny list"), r.detail());
        assertTrue(STRICT.check(ip(address)).isOk(), "without the deny list " + address + " passes");
    }

    @ParameterizedTest(name = "deny private still allows {0}")
    @CsvSource(textBlock = """
            172.15.255.255
            172.32.0.0
            100.63.255.255
            100.128.0.0
            11.0.0.1
            fe00::1
            2001:db8::1
            """)
    void theDenyListRefusesNothingElse(String address) throws Exception {
        assertTrue(DENY_PRIVATE.check(ip(address)).isOk(), address);
    }

    @ParameterizedTest(name = "allow {0} lifts {1}")
    @CsvSource(textBlock = """
            169.254.169.254/32, 169.254.169.254
            169.254.169.254/32, ::ffff:169.254.169.254
            169.254.169.254/32, 64:ff9b::a9fe:a9fe
            127.0.0.0/8,        2002:7f00:1::1
            64:ff9b::/96,       64:ff9b::7f00:1
            10.1.0.0/16,        10.1.2.3
            """)
    void theAllowListIsTheExceptionToBuiltInAndDenyRefusals(String allow, String address) throws Exception {
        AddressPolicy p = AddressPolicy.parse(allow, "private", Set::of).value();
        assertTrue(p.check(ip(address)).isOk(), address + ": " + p.check(ip(address)).detail());
    }

    @ParameterizedTest(name = "bad deny list {0}")
    @CsvSource(delimiter = '|', textBlock = """
            privat
            10.0.0.0/33
            10.0.0.1/8
            localhost
            private,example.com
            """)
    void badDenyListsAreRefusedNamingTheList(String deny) {
        TokenResult<AddressPolicy> r = AddressPolicy.parse(null, deny, Set::of);
        assertEquals(TokenError.BAD_CIDR, r.error(), deny);
        assertTrue(r.detail().startsWith("deny list: '"), r.detail());
    }

    @ParameterizedTest(name = "deny list {0} reads as {1}")
    @CsvSource(delimiter = '|', textBlock = """
            private             | 10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,fc00:0:0:0:0:0:0:0/7
            PRIVATE, private    | 10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,100.64.0.0/10,fc00:0:0:0:0:0:0:0/7
            198.51.100.0/24     | 198.51.100.0/24
            """)
    void denyListsAreNormalised(String deny, String normalised) {
        AddressPolicy p = AddressPolicy.parse("", deny, Set::of).value();
        assertEquals(normalised, p.denyList());
        assertEquals(p, AddressPolicy.parse(null, normalised, Set::of).value());
        assertTrue(!p.equals(STRICT));
    }

    @ParameterizedTest(name = "own address {0} carried as {1}")
    @CsvSource(textBlock = """
            192.0.2.10, 64:ff9b::c000:20a
            192.0.2.10, 2002:c000:20a::1
            192.0.2.10, ::192.0.2.10
            """)
    void theHostsOwnAddressesAreJudgedInsideEmbeddedForms(String own, String carried) throws Exception {
        InetAddress mine = ip(own);
        AddressPolicy p = AddressPolicy.parse(null, null, () -> Set.of(mine)).value();
        TokenResult<InetAddress> r = p.check(ip(carried));
        assertEquals(TokenError.ADDRESS_NOT_ALLOWED, r.error(), carried);
        assertTrue(r.detail().contains("own host"), r.detail());
    }
}
