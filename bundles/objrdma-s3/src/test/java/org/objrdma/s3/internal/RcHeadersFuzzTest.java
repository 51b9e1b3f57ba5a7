package org.objrdma.s3.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Locale;
import org.objrdma.api.session.Op;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Mtu;
import org.objrdma.s3.S3Exception;
import org.objrdma.s3.TestRequest;
import org.objrdma.s3.rdma.RdmaHeaders;
import org.objrdma.wire.RcTokenCodec;
import org.objrdma.wire.RcTokenCodecs;
import org.objrdma.wire.RcTokenHeader;
import org.objrdma.wire.TokenResult;

/**
 * Fuzz target (Jazzer) for the hipobj-rc-v2 request headers as the gateway reads them ({@link RcHeaders}, in the
 * order {@code RcRoutes} reads a PREPARE and a READY): op, size, offset, PSN, cookie, QPN, the TCP channel key, then
 * the token header decoded with that PSN and key (the token itself is {@code WireParsersFuzzTest}'s). Properties:
 * the only refusal is {@code 400 InvalidRdmaRequest}; what is accepted is exactly what the header says (an op of GET
 * or PUT, a decimal of 1 to 19 digits that fits a long, hex inside the route's bounds that prints back to the same
 * number, a key that prints back to the same hex), and a decoded endpoint is never null.
 */
class RcHeadersFuzzTest {

    private static final String[] HEADERS = {RdmaHeaders.OP, RdmaHeaders.SIZE, RdmaHeaders.OFFSET, RdmaHeaders.PSN,
        RdmaHeaders.COOKIE, RdmaHeaders.QPN, RdmaHeaders.CHANNEL_KEY, RdmaHeaders.TOKEN};

    /** One header value a line, in {@link #HEADERS} order; a missing or empty line leaves that header out. */
    @FuzzTest
    @DictionaryEntries({"GET", "PUT", "0x", "ffffff", "ffffffff", "9223372036854775807", "9223372036854775808", " ",
        "\t", "-1", "+1"})
    void prepareHeaders(byte[] input) {
        String[] lines = new String(input, StandardCharsets.UTF_8).split("\n", -1);
        TestRequest request = new TestRequest("POST", "/.hipobj-rc/prepare", "");
        for (int i = 0; i < HEADERS.length && i < lines.length; i++) {
            if (!lines[i].isEmpty()) {
                request.header(HEADERS[i], lines[i]);
            }
        }
        Exchange x = new Exchange(request, null, null, null, null, null, null, null, null);
        accepted(x, RdmaHeaders.OP, () -> {
            Op op = RcHeaders.op(x);
            assertEquals(op.name(), x.header(RdmaHeaders.OP).strip().toUpperCase(Locale.ROOT));
        });
        accepted(x, RdmaHeaders.SIZE, () -> assertDecimal(x, RdmaHeaders.SIZE, RcHeaders.decimal(x, RdmaHeaders.SIZE, true)));
        accepted(x, RdmaHeaders.OFFSET, () -> assertDecimal(x, RdmaHeaders.OFFSET,
                RcHeaders.decimal(x, RdmaHeaders.OFFSET, true)));
        long[] psn = {-1};
        accepted(x, RdmaHeaders.PSN, () -> psn[0] = assertHex(x, RdmaHeaders.PSN, 1, 0xFF_FFFF));
        accepted(x, RdmaHeaders.COOKIE, () -> assertHex(x, RdmaHeaders.COOKIE, 1, 0xFFFF_FFFFL));
        accepted(x, RdmaHeaders.QPN, () -> assertHex(x, RdmaHeaders.QPN, 1, 0xFFFF_FFFFL));
        byte[][] key = {null};
        boolean keyOk = accepted(x, RdmaHeaders.CHANNEL_KEY, () -> {
            key[0] = RcHeaders.channelKey(x);
            String v = x.header(RdmaHeaders.CHANNEL_KEY);
            if (v == null) {
                assertEquals(null, key[0]);
            } else {
                assertEquals(v.strip().toLowerCase(Locale.ROOT), HexFormat.of().formatHex(key[0]));
            }
        });
        if (!keyOk || psn[0] < 0) {
            return;
        }
        accepted(x, RdmaHeaders.TOKEN, () -> {
            TokenResult<RcTokenHeader> token = RcTokenHeader.parse(RcHeaders.required(x, RdmaHeaders.TOKEN));
            if (!token.isOk()) {
                return; // the route answers 400 with the parser's detail; the parser is WireParsersFuzzTest's
            }
            TokenResult<EndpointInfo> endpoint = RcTokenCodecs.decode(token.value().token(),
                    new RcTokenCodec.Context((int) psn[0], Mtu.MTU_4096, key[0]));
            if (endpoint.isOk()) {
                assertNotNull(endpoint.value());
            } else {
                assertNotNull(endpoint.detail(), "a refusal without its reason");
            }
        });
    }

    private interface Step {
        void run() throws S3Exception;
    }

    /** Runs {@code step}: true if it accepted, false if it refused with the documented 400 (anything else fails). */
    private static boolean accepted(Exchange x, String header, Step step) {
        try {
            step.run();
            return true;
        } catch (S3Exception e) {
            assertEquals(400, e.status(), header + " '" + x.header(header) + "': " + e);
            assertEquals(RcErrors.BAD_REQUEST, e.code(), header + " '" + x.header(header) + "': " + e);
            return false;
        }
    }

    private static void assertDecimal(Exchange x, String header, long value) {
        String v = x.header(header).strip();
        assertTrue(v.matches("[0-9]{1,19}"), header + " accepted '" + v + "'");
        assertTrue(value >= 0, header + " '" + v + "' read as " + value);
        assertEquals(Long.parseLong(v), value);
    }

    private static long assertHex(Exchange x, String header, long min, long max) throws S3Exception {
        long n = RcHeaders.hex(x, header, min, max);
        String v = x.header(header).strip().toLowerCase(Locale.ROOT);
        String digits = v.startsWith("0x") ? v.substring(2) : v;
        assertTrue(digits.matches("[0-9a-f]{1,16}"), header + " accepted '" + v + "'");
        assertTrue(Long.compareUnsigned(n, min) >= 0 && Long.compareUnsigned(n, max) <= 0, header + " " + n);
        assertEquals(Long.parseUnsignedLong(digits, 16), n, header + " '" + v + "'");
        return n;
    }
}
