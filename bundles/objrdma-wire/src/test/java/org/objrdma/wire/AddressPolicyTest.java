package org.objrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.Mtu;

class AddressPolicyTest {

    private static InetAddress ip(String literal) throws Exception {
        return InetAddress.getByName(literal); // literals only: nothing is resolved
    }

    @Test
    void refusesLoopbackUnspecifiedMulticastAndTheHostsOwnAddresses() throws Exception {
        InetAddress own = ip("192.0.2.10");
        AddressPolicy p = AddressPolicy.parse("", () -> Set.of(own)).value();
        for (String bad : new String[] {"127.0.0.1", "127.1.2.3", "::1", "0.0.0.0", "::", "224.0.0.1", "ff02::1",
                "192.0.2.10", "::ffff:127.0.0.1", "::ffff:192.0.2.10"}) {
            TokenResult<InetAddress> r = p.check(ip(bad));
            assertEquals(TokenError.ADDRESS_NOT_ALLOWED, r.error(), bad);
            assertTrue(!r.detail().isEmpty(), bad);
        }
        assertTrue(p.check(ip("192.0.2.11")).isOk(), "another host");
        assertTrue(p.check(ip("fd00::10")).isOk());
        assertEquals(TokenError.ADDRESS_NOT_ALLOWED,
                p.check(InetSocketAddress.createUnresolved("localhost", 80)).error(), "nothing is resolved");
    }

    @Test
    void theStrictDefaultKnowsThisHostsInterfaces() throws Exception {
        AddressPolicy p = AddressPolicy.strict();
        for (InetAddress a : AddressPolicy.hostAddresses()) {
            assertEquals(TokenError.ADDRESS_NOT_ALLOWED, p.check(a).error(), a.toString());
        }
        assertEquals(TokenError.ADDRESS_NOT_ALLOWED, p.check(InetAddress.getLoopbackAddress()).error());
    }

    @Test
    void theAllowListLiftsTheRefusalForItsBlocksOnly() throws Exception {
        Set<InetAddress> own = Set.of(ip("192.0.2.10"), ip("192.0.2.20"));
        AddressPolicy p = AddressPolicy.parse("127.0.0.0/8, ::1 192.0.2.10/32", () -> own).value();
        assertTrue(p.check(ip("127.0.0.1")).isOk());
        assertTrue(p.check(ip("127.9.9.9")).isOk());
        assertTrue(p.check(ip("::1")).isOk());
        assertTrue(p.check(ip("::ffff:127.0.0.1")).isOk(), "IPv4-mapped judged as IPv4");
        assertTrue(p.check(ip("192.0.2.10")).isOk());
        assertEquals(TokenError.ADDRESS_NOT_ALLOWED, p.check(ip("192.0.2.20")).error(), "own, not listed");
        assertEquals(TokenError.ADDRESS_NOT_ALLOWED, p.check(ip("0.0.0.0")).error());
        assertEquals("127.0.0.0/8,0:0:0:0:0:0:0:1/128,192.0.2.10/32", p.allowList());
    }

    @Test
    void endpointsAreJudgedByTheAddressADialerContacts() throws Exception {
        AddressPolicy p = AddressPolicy.parse(null, Set::of).value();
        EndpointInfo tcp = new EndpointInfo.Tcp(new InetSocketAddress(ip("127.0.0.1"), 4000), 1, new byte[16]);
        assertEquals(TokenError.ADDRESS_NOT_ALLOWED, p.check(tcp).error());
        EndpointInfo verbs = new EndpointInfo.Verbs(1, 1, new Gid(0xfe80_0000_0000_0000L, 1), 1, 1, Mtu.MTU_1024);
        assertTrue(p.check(verbs).isOk(), "verbs endpoints are reached through the fabric, not dialed by IP");
    }

    @Test
    void badAllowListsAreRefusedWithTheEntryNamed() {
        for (String bad : new String[] {"localhost", "10.0.0.0/33", "::/129", "10.0.0.1/8", "10.0.0/8", "1.2.3.4/",
                "1.2.3.4/-1", "fe80::1%eth0", "[::1]", "256.1.1.1", "10.0.0.0/8,x"}) {
            TokenResult<AddressPolicy> r = AddressPolicy.parse(bad, Set::of);
            assertEquals(TokenError.BAD_CIDR, r.error(), bad);
            assertTrue(r.detail().contains("'"), r.detail());
        }
        assertTrue(AddressPolicy.parse("  ", Set::of).isOk());
        assertTrue(AddressPolicy.parse("0.0.0.0/0", Set::of).isOk());
    }
}
