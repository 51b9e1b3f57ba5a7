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

class CuObjDescriptorTest {
    /** The example of the field layout, as the format string "%016lx:%08x:%08x:%04x:%06x:%01x:%016lx%016lx" writes it. */
    static final String EXAMPLE = "0102030405060708:01020304:0a0b0c0d:0102:010203:1:0102030405060708090a0b0c0d0e0f10";
    private static final Gid GID = new Gid(0xfe80_0000_0000_0000L, 0x0002_c903_00ab_cdefL);

    /** EXAMPLE with field {@code [from, to)} replaced. */
    private static String with(int from, int to, String replacement) {
        return EXAMPLE.substring(0, from) + replacement + EXAMPLE.substring(to);
    }

    @Test
    void refusesGidsThatNameNoHost() {
        String unspecified = with(49, 81, "00000000000000000000000000000000");
        assertEquals(TokenError.UNSPECIFIED_GID, CuObjDescriptor.parse(unspecified).error(), "::");
        String mappedAny = with(49, 81, "00000000000000000000ffff00000000");
        assertEquals(TokenError.UNSPECIFIED_GID, CuObjDescriptor.parse(mappedAny).error(), "::ffff:0.0.0.0");
        assertEquals(TokenError.UNSPECIFIED_GID, CuObjTokenHeader.parse(unspecified + ";").error());
        assertThrows(IllegalArgumentException.class, () -> new CuObjDescriptor(1, 1, 1, 1, 1, true, Gid.ZERO));
        // has_gid 0 may carry only zeros
        String stray = with(47, 48, "0");
        assertEquals(TokenError.STRAY_GID, CuObjDescriptor.parse(stray).error());
        assertThrows(IllegalArgumentException.class, () -> new CuObjDescriptor(1, 1, 1, 1, 1, false, GID));
        assertTrue(CuObjDescriptor.parse(with(47, 81, "0:00000000000000000000000000000000")).isOk(),
                "an InfiniBand DC descriptor without GID still parses");
    }

    @Test
    void refusesAllOnesSizesAndWrappingRegions() {
        assertEquals(TokenError.BAD_SIZE, CuObjDescriptor.parse(with(17, 25, "ffffffff")).error(), "rsize all ones");
        assertEquals(TokenError.BAD_SIZE, CuObjDescriptor.parse(with(0, 16, "ffffffffffffffff")).error(), "raddr all ones");
        assertEquals(TokenError.BAD_SIZE, CuObjDescriptor.parse(with(0, 16, "ffffffffffffff00")).error(),
                "raddr + rsize wraps past 2^64");
        assertTrue(CuObjDescriptor.parse(with(0, 25, "fffffffe00000000:fffffffe")).isOk(), "ends at 2^64 - 2");
        assertThrows(IllegalArgumentException.class, () -> new CuObjDescriptor(1, 0xFFFF_FFFFL, 1, 1, 1, true, GID));
        // the span of the header form: all ones, a size above 2^63 - 1, a wrap
        assertEquals(TokenError.BAD_SIZE, CuObjTokenHeader.parse(EXAMPLE + ":1000:ffffffffffffffff").error());
        assertEquals(TokenError.BAD_SIZE, CuObjTokenHeader.parse(EXAMPLE + ":1000:8000000000000000;").error());
        assertEquals(TokenError.BAD_SIZE, CuObjTokenHeader.parse(EXAMPLE + ":ffffffffffffffff:0").error());
        assertEquals(TokenError.BAD_SIZE, CuObjTokenHeader.parse(EXAMPLE + ":fffffffffffff000:2000").error());
        assertThrows(IllegalArgumentException.class, () -> new CuObjTokenHeader.Span(0x1000, -1));
        assertTrue(CuObjTokenHeader.parse(EXAMPLE + ":fffffffffffff000:1000").isOk(), "ends exactly at 2^64");
    }

    @Test
    void parsesEveryFieldOfTheDocumentedLayout() {
        CuObjDescriptor d = CuObjDescriptor.parse(EXAMPLE).value();
        assertEquals(0x0102030405060708L, d.remoteAddress());
        assertEquals(0x01020304L, d.regionSize());
        assertEquals(0x0a0b0c0d, d.rkey());
        assertEquals(0x0102, d.lid());
        assertEquals(0x010203, d.targetNumber());
        assertTrue(d.hasGid());
        assertEquals(new Gid(0x0102030405060708L, 0x090a0b0c0d0e0f10L), d.gid());
        assertEquals(EXAMPLE, d.format());
        assertEquals(81, EXAMPLE.length());
    }

    @Test
    void formatsTheFullWidthOfEveryFieldIncludingHighBits() {
        // the widest values a descriptor may carry: all ones where the field has no size meaning
        CuObjDescriptor d = new CuObjDescriptor(-2L - 0xFFFF_FFFEL, 0xFFFF_FFFEL, -1, 0xFFFF, 0xFF_FFFF, true,
                new Gid(-1L, -1L));
        String s = d.format();
        assertEquals("ffffffff00000000:fffffffe:ffffffff:ffff:ffffff:1:ffffffffffffffffffffffffffffffff", s);
        assertEquals(d, CuObjDescriptor.parse(s).value());
        assertEquals(new CuObjDescriptor(0, 0, 0, 0, 0, false, Gid.ZERO),
                CuObjDescriptor.parse("0000000000000000:00000000:00000000:0000:000000:0:00000000000000000000000000000000").value());
    }

    @Test
    void acceptsUpperCaseHexAndWritesLowerCase() {
        String upper = EXAMPLE.toUpperCase();
        CuObjDescriptor d = CuObjDescriptor.parse(upper).value();
        assertEquals(EXAMPLE, d.format());
    }

    @Test
    void refusesEachMalformationWithItsNamedError() {
        assertEquals(TokenError.EMPTY, CuObjDescriptor.parse(null).error());
        assertEquals(TokenError.EMPTY, CuObjDescriptor.parse("").error());
        assertEquals(TokenError.WRONG_LENGTH, CuObjDescriptor.parse(EXAMPLE.substring(1)).error());
        assertEquals(TokenError.WRONG_LENGTH, CuObjDescriptor.parse(EXAMPLE + "0").error());
        assertEquals(TokenError.WRONG_LENGTH, CuObjDescriptor.parse(EXAMPLE + ";").error(), "the bare form has no ';'");
        // a separator moved: same length, field boundary broken
        String moved = EXAMPLE.substring(0, 15) + ":" + EXAMPLE.charAt(15) + EXAMPLE.substring(17);
        assertEquals(TokenError.BAD_SEPARATOR, CuObjDescriptor.parse(moved).error());
        assertEquals(TokenError.BAD_SEPARATOR, CuObjDescriptor.parse(EXAMPLE.replace(':', '-')).error());
        assertEquals(TokenError.NOT_HEX, CuObjDescriptor.parse("g" + EXAMPLE.substring(1)).error());
        assertEquals(TokenError.NOT_HEX, CuObjDescriptor.parse(EXAMPLE.substring(0, 80) + "z").error());
        assertEquals(TokenError.NOT_HEX, CuObjDescriptor.parse(" " + EXAMPLE.substring(1)).error());
        assertEquals(TokenError.NOT_HEX, CuObjDescriptor.parse("+" + EXAMPLE.substring(1)).error(), "no sign");
        String hasGid2 = EXAMPLE.substring(0, 47) + "2" + EXAMPLE.substring(48);
        assertEquals(TokenError.BAD_HAS_GID, CuObjDescriptor.parse(hasGid2).error());
        // the error is a value, never an exception, and the detail says what was wrong
        assertTrue(CuObjDescriptor.parse(hasGid2).detail().contains("has_gid"));
        assertThrows(IllegalStateException.class, () -> CuObjDescriptor.parse(hasGid2).value());
    }

    @Test
    void theTcpMappingCarriesTheAgentAddressPortAndChannel() throws Exception {
        InetSocketAddress agent = new InetSocketAddress(InetAddress.getByName("192.168.7.9"), 40123);
        CuObjDescriptor d = CuObjDescriptor.forTcpAgent(agent, 0x123456, 0x7f00_1234_5000L, 1 << 20, 0xCAFEBABE);
        assertTrue(d.hasGid());
        assertEquals(40123, d.lid());
        assertEquals(0x123456, d.targetNumber());
        assertEquals("00000000000000000000ffffc0a80709", d.gid().toHex(), "IPv4 as IPv4-mapped IPv6");
        assertEquals(agent, d.tcpAgentAddress().value());
        byte[] key = AgentKeys.generate();
        EndpointInfo.Tcp ep = d.tcpEndpoint(key).value();
        assertEquals(new EndpointInfo.Tcp(agent, 0x123456, key), ep);
        assertEquals(d, CuObjDescriptor.parse(d.format()).value());

        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("fd00::10"), 18515);
        CuObjDescriptor d6 = CuObjDescriptor.forTcpAgent(v6, 1, 4096, 4096, 7);
        assertEquals("fd000000000000000000000000000010", d6.gid().toHex());
        assertEquals(v6, d6.tcpAgentAddress().value());
    }

    @Test
    void refusesWhatTheTcpMappingCannotCarry() throws Exception {
        InetSocketAddress agent = new InetSocketAddress(InetAddress.getLoopbackAddress(), 4000);
        assertThrows(IllegalArgumentException.class, () -> CuObjDescriptor.forTcpAgent(agent, 0x100_0000, 1, 1, 1),
                "a channel id above 24 bits");
        assertThrows(IllegalArgumentException.class, () -> CuObjDescriptor.forTcpAgent(agent, 1, 1, 1L << 32, 1),
                "a size above 32 bits");
        assertThrows(IllegalArgumentException.class, () -> CuObjDescriptor.forTcpAgent(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1, 1, 1, 1), "port 0");
        assertThrows(IllegalArgumentException.class, () -> CuObjDescriptor.forTcpAgent(
                InetSocketAddress.createUnresolved("example.org", 80), 1, 1, 1, 1), "unresolved");

        CuObjDescriptor noGid = new CuObjDescriptor(1, 1, 1, 5, 1, false, Gid.ZERO);
        assertFalse(noGid.isTcpAddressable());
        assertEquals(TokenError.NOT_TCP_ADDRESSABLE, noGid.tcpEndpoint(AgentKeys.generate()).error());
        CuObjDescriptor noPort = new CuObjDescriptor(1, 1, 1, 0, 1, true, GID);
        assertEquals(TokenError.NOT_TCP_ADDRESSABLE, noPort.tcpAgentAddress().error());
    }

    @Test
    void coversChecksTheRangeWithoutOverflow() {
        CuObjDescriptor d = new CuObjDescriptor(0x1000, 0x100, 1, 1, 1, true, GID);
        assertTrue(d.covers(0x1000, 0x100));
        assertTrue(d.covers(0x10ff, 1));
        assertFalse(d.covers(0x0fff, 2));
        assertFalse(d.covers(0x1001, 0x100));
        assertFalse(d.covers(0x1000, Long.MAX_VALUE));
        CuObjDescriptor top = new CuObjDescriptor(-16L, 16, 1, 1, 1, true, GID);
        assertTrue(top.covers(-16L, 16));
        assertFalse(top.covers(-8L, 16), "wraps past 2^64");
    }

    @Test
    void headerFormsAreAcceptedAndTheSuffixRead() {
        CuObjDescriptor d = CuObjDescriptor.parse(EXAMPLE).value();
        assertEquals(new CuObjTokenHeader(d, Optional.empty()), CuObjTokenHeader.parse(EXAMPLE).value());
        assertEquals(new CuObjTokenHeader(d, Optional.empty()), CuObjTokenHeader.parse(EXAMPLE + ";").value());
        CuObjTokenHeader withSpan = CuObjTokenHeader.parse(EXAMPLE + ":00007f0000001000:0000000000100000").value();
        assertEquals(Optional.of(new CuObjTokenHeader.Span(0x7f0000001000L, 0x100000)), withSpan.span());
        assertEquals(withSpan, CuObjTokenHeader.parse(EXAMPLE + ":7f0000001000:100000;").value(), "short fields, ';'");
        assertEquals(EXAMPLE + ":00007f0000001000:0000000000100000", withSpan.format());
        assertEquals(withSpan, CuObjTokenHeader.parse(withSpan.format()).value());
    }

    @Test
    void headerRefusalsAreNamed() {
        assertEquals(TokenError.EMPTY, CuObjTokenHeader.parse(null).error());
        assertEquals(TokenError.EMPTY, CuObjTokenHeader.parse("").error());
        assertEquals(TokenError.WRONG_LENGTH, CuObjTokenHeader.parse(";").error());
        assertEquals(TokenError.WRONG_LENGTH, CuObjTokenHeader.parse(EXAMPLE.substring(3) + ";").error());
        assertEquals(TokenError.TRAILING_CHARACTERS, CuObjTokenHeader.parse(EXAMPLE + ";;").error());
        assertEquals(TokenError.TRAILING_CHARACTERS, CuObjTokenHeader.parse(EXAMPLE + "0").error());
        assertEquals(TokenError.TRAILING_CHARACTERS, CuObjTokenHeader.parse(EXAMPLE + " ").error());
        assertEquals(TokenError.BAD_SUFFIX, CuObjTokenHeader.parse(EXAMPLE + ":").error());
        assertEquals(TokenError.BAD_SUFFIX, CuObjTokenHeader.parse(EXAMPLE + ":10").error());
        assertEquals(TokenError.BAD_SUFFIX, CuObjTokenHeader.parse(EXAMPLE + ":10:").error());
        assertEquals(TokenError.BAD_SUFFIX, CuObjTokenHeader.parse(EXAMPLE + "::10").error());
        assertEquals(TokenError.BAD_SUFFIX, CuObjTokenHeader.parse(EXAMPLE + ":10:20:30").error());
        assertEquals(TokenError.BAD_SUFFIX, CuObjTokenHeader.parse(EXAMPLE + ":10000000000000000:20").error(), "17 digits");
        assertEquals(TokenError.BAD_SUFFIX, CuObjTokenHeader.parse(EXAMPLE + ":1x:20").error());
        assertEquals(TokenError.BAD_SUFFIX, CuObjTokenHeader.parse(EXAMPLE + ":10;:20").error());
        assertEquals(TokenError.BAD_HAS_GID,
                CuObjTokenHeader.parse(EXAMPLE.substring(0, 47) + "f" + EXAMPLE.substring(48) + ";").error());
    }
}
