package org.objrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.RemoteRegion;

class RcTokenTest {

    @Test
    void writesTheFieldsInWireOrderLittleEndian() {
        RcToken t = new RcToken(RcToken.TRANSPORT_RC, 0x00ABCDEFL, new Gid(0xfe80_0000_0000_0000L, 0x0002_c903_00ab_cdefL),
                0x11223344, 0x0000_7f12_3456_7000L, 0x100000L, 1, 0x0102);
        String hex = t.format();
        assertEquals(88, hex.length());
        // transport | qpNum LE | gid | rkey LE | addr LE | length LE | port | lid LE
        assertEquals("01" + "efcdab00" + "fe800000000000000002c90300abcdef" + "44332211"
                + "0070563412" + "7f0000" + "0000100000000000" + "01" + "0201", hex);
        assertEquals(t, RcToken.parse(hex).value());
        assertEquals(t, RcToken.parse(hex.toUpperCase()).value());
    }

    @Test
    void theAllZeroTokenIsTheLoopbackMarker() {
        RcToken zero = RcToken.parse("0".repeat(88)).value();
        assertTrue(zero.isLoopbackMarker());
        assertEquals(RcToken.LOOPBACK_MARKER, zero);
        assertFalse(RcToken.parse("1" + "0".repeat(87)).value().isLoopbackMarker());
    }

    @Test
    void theTcpVariantMapsAgentAddressChannelAndRegion() throws Exception {
        byte[] key = AgentKeys.generate();
        InetSocketAddress agent = new InetSocketAddress(InetAddress.getByName("10.1.2.3"), 45000);
        EndpointInfo.Tcp ep = new EndpointInfo.Tcp(agent, 77, key);
        RcToken t = RcToken.forTcp(ep, new RemoteRegion(0x5000, 4096, 0x1234));
        assertEquals(RcToken.TRANSPORT_TCP, t.transport());
        assertEquals(77, t.qpNum());
        assertEquals(45000, t.lid());
        assertEquals(1, t.portNum());
        assertEquals("00000000000000000000ffff0a010203", t.gid().toHex());
        RcToken back = RcToken.parse(t.format()).value();
        assertEquals(ep, back.tcpEndpoint(key).value());
        assertEquals(new RemoteRegion(0x5000, 4096, 0x1234), back.remoteRegion());
        assertEquals(TokenError.WRONG_TRANSPORT, back.verbsEndpoint(1, Mtu.MTU_1024).error());
    }

    @Test
    void theVerbsVariantRoundTripsItsEndpoint() {
        EndpointInfo.Verbs v = new EndpointInfo.Verbs(0x1234, 0x42, new Gid(1, 2), 7, 1, Mtu.MTU_4096);
        RcToken t = RcToken.forVerbs(v, null);
        assertEquals(RcToken.TRANSPORT_RC, t.transport());
        assertEquals(v, RcToken.parse(t.format()).value().verbsEndpoint(0x42, Mtu.MTU_4096).value());
        assertEquals(TokenError.WRONG_TRANSPORT, t.tcpEndpoint(AgentKeys.generate()).error());
        RcToken wide = new RcToken(RcToken.TRANSPORT_RC, 0x1_000_000L, Gid.ZERO, 0, 0, 0, 1, 0);
        assertEquals(TokenError.OUT_OF_RANGE, wide.verbsEndpoint(1, Mtu.MTU_1024).error());
        RcToken noPort = new RcToken(RcToken.TRANSPORT_TCP, 1, Gid.ZERO, 0, 0, 0, 1, 0);
        assertEquals(TokenError.NOT_TCP_ADDRESSABLE, noPort.tcpEndpoint(AgentKeys.generate()).error());
    }

    @Test
    void refusalsAreNamed() {
        String ok = RcToken.LOOPBACK_MARKER.format();
        assertEquals(TokenError.EMPTY, RcToken.parse(null).error());
        assertEquals(TokenError.EMPTY, RcToken.parse("").error());
        assertEquals(TokenError.WRONG_LENGTH, RcToken.parse(ok.substring(1)).error());
        assertEquals(TokenError.WRONG_LENGTH, RcToken.parse(ok + "0").error());
        assertEquals(TokenError.NOT_HEX, RcToken.parse("0".repeat(87) + "g").error());
        assertEquals(TokenError.NOT_HEX, RcToken.parse("-" + "0".repeat(87)).error());
    }

    @Test
    void theExtendedHeaderFormCarriesAddressAndSize() {
        RcToken t = new RcToken(RcToken.TRANSPORT_RC, 5, Gid.ZERO, 9, 0x1000, 0x2000, 1, 0);
        String hex = t.format();
        RcTokenHeader h = RcTokenHeader.parse(hex + ":1000:2000").value();
        assertEquals(t, h.token());
        assertEquals(Optional.of(new CuObjTokenHeader.Span(0x1000, 0x2000)), h.span());
        assertEquals(h, RcTokenHeader.parse(h.format()).value());
        assertEquals(Optional.empty(), RcTokenHeader.parse(hex).value().span());
        assertEquals(TokenError.TRAILING_CHARACTERS, RcTokenHeader.parse(hex + ";").error());
        assertEquals(TokenError.BAD_SUFFIX, RcTokenHeader.parse(hex + ":1000").error());
        assertEquals(TokenError.BAD_SUFFIX, RcTokenHeader.parse(hex + ":1000:").error());
        assertEquals(TokenError.BAD_SUFFIX, RcTokenHeader.parse(hex + ":12345678901234567:1").error());
        assertEquals(TokenError.WRONG_LENGTH, RcTokenHeader.parse(hex.substring(2)).error());
        assertEquals(TokenError.NOT_HEX, RcTokenHeader.parse("zz" + hex.substring(2) + ":1:1").error());
    }
}
