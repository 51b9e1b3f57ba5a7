package org.objrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
    private static final Gid GID = new Gid(0xfe80_0000_0000_0000L, 0x0002_c903_00ab_cdefL);

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
        assertEquals(TokenError.UNSPECIFIED_GID, RcToken.parse("1" + "0".repeat(87)).error(),
                "zeros but the transport byte: not the marker, and its GID names no host");
        assertFalse(RcToken.parse(new RcToken(0, 0, GID, 0, 0, 0, 0, 0).format()).value().isLoopbackMarker());
    }

    /** A token of {@code gid}, {@code addr}, {@code length} as 88 hex characters, written field by field. */
    private static String token(String gidHex, String addrLe, String lengthLe) {
        return "01" + "05000000" + gidHex + "09000000" + addrLe + lengthLe + "01" + "0000";
    }

    @Test
    void refusesGidsThatNameNoHost() {
        assertEquals(TokenError.UNSPECIFIED_GID,
                RcToken.parse(token("0".repeat(32), "0010000000000000", "0020000000000000")).error(), "::");
        assertEquals(TokenError.UNSPECIFIED_GID, RcToken.parse(token("00000000000000000000ffff00000000",
                "0010000000000000", "0020000000000000")).error(), "::ffff:0.0.0.0");
        assertEquals(TokenError.UNSPECIFIED_GID, RcTokenHeader.parse(token("0".repeat(32), "0010000000000000",
                "0020000000000000") + ":1:1").error());
        assertThrows(IllegalArgumentException.class, () -> new RcToken(1, 5, Gid.ZERO, 9, 0x1000, 0x2000, 1, 0));
    }

    @Test
    void refusesLengthsThatDoNotFitInsteadOfClampingThem() {
        String gid = GID.toHex();
        assertEquals(TokenError.BAD_SIZE, RcToken.parse(token(gid, "0010000000000000", "ffffffffffffffff")).error(),
                "length all ones (main clamped it to 0)");
        assertEquals(TokenError.BAD_SIZE, RcToken.parse(token(gid, "0010000000000000", "0000000000000080")).error(),
                "length 2^63");
        assertEquals(TokenError.BAD_SIZE, RcToken.parse(token(gid, "00f0ffffffffffff", "0020000000000000")).error(),
                "address + length wraps past 2^64");
        assertEquals(TokenError.BAD_SIZE, RcToken.parse(token(gid, "ffffffffffffffff", "0000000000000000")).error(),
                "address all ones");
        RcToken fits = RcToken.parse(token(gid, "0010000000000000", "ffffffffffffff7f")).value();
        assertEquals(Long.MAX_VALUE, fits.remoteRegion().length());
        assertThrows(IllegalArgumentException.class, () -> new RcToken(1, 5, GID, 9, 0x1000, -1, 1, 0));
        // the header's span
        String t = token(gid, "0010000000000000", "0020000000000000");
        assertEquals(TokenError.BAD_SIZE, RcTokenHeader.parse(t + ":1000:ffffffffffffffff").error());
        assertEquals(TokenError.BAD_SIZE, RcTokenHeader.parse(t + ":ffffffffffffffff:1").error());
        assertTrue(RcTokenHeader.parse(t + ":1000:2000").isOk());
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
        RcToken wide = new RcToken(RcToken.TRANSPORT_RC, 0x1_000_000L, GID, 0, 0, 0, 1, 0);
        assertEquals(TokenError.OUT_OF_RANGE, wide.verbsEndpoint(1, Mtu.MTU_1024).error());
        RcToken noPort = new RcToken(RcToken.TRANSPORT_TCP, 1, GID, 0, 0, 0, 1, 0);
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
        RcToken t = new RcToken(RcToken.TRANSPORT_RC, 5, GID, 9, 0x1000, 0x2000, 1, 0);
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
