package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.transport.EndpointInfo;

/**
 * PREPARE judges the client endpoint with the wire address policy: loopback, unspecified and this host's own
 * addresses are ARG (nothing charged, no session) unless {@code allow.addresses} names them.
 */
class PrepareAddressPolicyTest {

    private static PrepareRequest putFrom(Harness h, InetSocketAddress agent) {
        EndpointInfo endpoint = new EndpointInfo.Tcp(agent, 0, new byte[32]);
        return new PrepareRequest(Harness.ALICE, Op.PUT, Harness.TARGET, 0, 4096, Harness.PSN, Harness.COOKIE,
                endpoint, null);
    }

    @Test
    void loopbackAndUnspecifiedEndpointsAreRefusedWithoutAnAllowList() {
        Harness h = new Harness(Harness.settings().allowAddresses("").build());
        assertEquals(RcStatus.ARG, h.core.prepare(putFrom(h, new InetSocketAddress("127.0.0.1", 7471))).status());
        assertEquals(RcStatus.ARG, h.core.prepare(putFrom(h, new InetSocketAddress("::1", 7471))).status());
        assertEquals(RcStatus.ARG, h.core.prepare(putFrom(h, new InetSocketAddress("0.0.0.0", 7471))).status());
        assertEquals(RcStatus.ARG, h.core.prepare(putFrom(h, new InetSocketAddress("127.9.9.9", 7471))).status());
        assertEquals(0, h.core.liveSessions(), "a refusal creates nothing");
        assertEquals(new LimitAccounting.Usage(0, 0, 0), h.core.usage(), "and charges nothing");
        assertEquals(0, h.pool.outstanding.get(), "no staging taken");
    }

    @Test
    void linkLocalBroadcastAndEmbeddedFormsAreRefusedAndTheDenyListIsApplied() {
        Harness h = new Harness(Harness.settings().allowAddresses("").denyAddresses("private").build());
        for (String refused : new String[] {"169.254.169.254", "fe80::1", "255.255.255.255", "0.1.2.3",
                "64:ff9b::a9fe:a9fe", "::127.0.0.1", "2002:7f00:1::1", "10.0.0.7", "192.168.1.1", "fd00::7"}) {
            assertEquals(RcStatus.ARG, h.core.prepare(putFrom(h, new InetSocketAddress(refused, 7471))).status(),
                    refused);
        }
        assertEquals(0, h.core.liveSessions(), "a refusal creates nothing");
        assertEquals(RcStatus.OK, h.core.prepare(putFrom(h, new InetSocketAddress("192.0.2.10", 7471))).status());
    }

    @Test
    void theAllowListAdmitsExactlyItsBlocks() {
        Harness h = new Harness(Harness.settings().allowAddresses("127.0.0.1/32").build());
        assertEquals(RcStatus.OK, h.core.prepare(putFrom(h, new InetSocketAddress("127.0.0.1", 7471))).status());
        assertEquals(RcStatus.ARG, h.core.prepare(putFrom(h, new InetSocketAddress("127.0.0.2", 7471))).status());
        assertEquals(RcStatus.ARG, h.core.prepare(putFrom(h, new InetSocketAddress("::1", 7471))).status());
        assertEquals(1, h.core.liveSessions());
    }
}
