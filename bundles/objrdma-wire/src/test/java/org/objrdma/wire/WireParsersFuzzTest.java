package org.objrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.Set;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Mtu;

/**
 * Coverage-guided fuzz targets (Jazzer) for every parser of this package that reads what a peer or client sends:
 * the cuObject descriptor, the {@code x-amz-rdma-token} header forms of both protocols, the hipobj-rc-v2 token
 * (with the endpoint decoding a PREPARE goes through) and the address policy's allow list. The properties: the
 * parser never throws and never returns null; a refusal is one of the errors the parser documents, with a
 * sentence; an accepted value re-encodes to a string that parses to an equal value.
 *
 * <p>The input bytes are read as UTF-8, so the fuzzer reaches every character, not only ASCII. Regression mode
 * (a normal {@code mvn test}) runs the seeds under
 * {@code src/test/resources/org/objrdma/wire/WireParsersFuzzTestInputs/} and every crash input committed there; {@code scripts/fuzz.sh} fuzzes one target at a time.
 */
class WireParsersFuzzTest {
    private static final Set<TokenError> DESCRIPTOR_REFUSALS = EnumSet.of(TokenError.EMPTY, TokenError.WRONG_LENGTH,
            TokenError.BAD_SEPARATOR, TokenError.NOT_HEX, TokenError.BAD_HAS_GID, TokenError.BAD_SIZE,
            TokenError.UNSPECIFIED_GID, TokenError.STRAY_GID);
    private static final Set<TokenError> CUOBJ_HEADER_REFUSALS = EnumSet.of(TokenError.EMPTY, TokenError.WRONG_LENGTH,
            TokenError.BAD_SEPARATOR, TokenError.NOT_HEX, TokenError.BAD_HAS_GID, TokenError.TRAILING_CHARACTERS,
            TokenError.BAD_SUFFIX, TokenError.BAD_SIZE, TokenError.UNSPECIFIED_GID, TokenError.STRAY_GID);
    private static final Set<TokenError> RC_TOKEN_REFUSALS = EnumSet.of(TokenError.EMPTY, TokenError.WRONG_LENGTH,
            TokenError.NOT_HEX, TokenError.UNSPECIFIED_GID, TokenError.BAD_SIZE);
    private static final Set<TokenError> RC_HEADER_REFUSALS = EnumSet.of(TokenError.EMPTY, TokenError.WRONG_LENGTH,
            TokenError.NOT_HEX, TokenError.TRAILING_CHARACTERS, TokenError.BAD_SUFFIX, TokenError.UNSPECIFIED_GID,
            TokenError.BAD_SIZE);
    private static final Set<TokenError> ENDPOINT_REFUSALS = EnumSet.of(TokenError.WRONG_TRANSPORT,
            TokenError.NOT_TCP_ADDRESSABLE, TokenError.OUT_OF_RANGE, TokenError.BAD_KEY);
    private static final Set<TokenError> TCP_ENDPOINT_REFUSALS = EnumSet.of(TokenError.NOT_TCP_ADDRESSABLE);

    /** What hipobj-rc-v2 carries beside a PREPARE token: a PSN, the MTU and (TCP) the channel key. */
    private static final RcTokenCodec.Context PREPARE_CONTEXT = new RcTokenCodec.Context(0x123456, Mtu.MTU_4096,
            new byte[32]);
    private static final byte[] AGENT_KEY = new byte[32];

    /** A fixed host address set: the policy would otherwise enumerate the interfaces on every input. */
    private static final Set<InetAddress> OWN_ADDRESSES = Set.of(address("192.0.2.7"), address("2001:db8::7"));

    private static String text(byte[] input) {
        return new String(input, StandardCharsets.UTF_8);
    }

    /** A refusal must be documented and explain itself. */
    private static void assertNamedRefusal(TokenResult<?> r, Set<TokenError> documented, String input) {
        assertNotNull(r, "null result");
        if (!r.isOk()) {
            assertTrue(documented.contains(r.error()), () -> r.error() + " is not a documented refusal of this"
                    + " parser; input " + Quote.of(input));
            assertFalse(r.detail().isEmpty(), () -> "refusal " + r.error() + " without a sentence");
        }
    }

    @FuzzTest
    @DictionaryEntries({":", ";", ":1:", ":0:", "ffffffff", "ffffffffffffffff", "8000000000000000",
            "00000000000000000000ffff00000000", "00000000000000000000000000000000"})
    void descriptor(byte[] input) {
        String s = text(input);
        TokenResult<CuObjDescriptor> r = CuObjDescriptor.parse(s);
        assertNamedRefusal(r, DESCRIPTOR_REFUSALS, s);
        if (r.isOk()) {
            CuObjDescriptor d = r.value();
            // the accepted form is canonical up to case, and the value survives its own encoding
            assertEquals(s.toLowerCase(java.util.Locale.ROOT), d.format(), "accepted descriptor is not canonical");
            assertEquals(d, CuObjDescriptor.parse(d.format()).value(), "round trip");
            assertNamedRefusal(d.tcpEndpoint(AGENT_KEY), TCP_ENDPOINT_REFUSALS, s);
        }
    }

    @FuzzTest
    @DictionaryEntries({":", ";", ":1:", ":0:", "ffffffff", "ffffffffffffffff", "7fffffffffffffff",
            "8000000000000000", "00000000000000000000ffff0a000001"})
    void cuObjTokenHeader(byte[] input) {
        String s = text(input);
        TokenResult<CuObjTokenHeader> r = CuObjTokenHeader.parse(s);
        assertNamedRefusal(r, CUOBJ_HEADER_REFUSALS, s);
        if (r.isOk()) {
            CuObjTokenHeader h = r.value();
            String encoded = h.format();
            assertEquals(h, CuObjTokenHeader.parse(encoded).value(), "round trip");
            assertEquals(h, CuObjTokenHeader.parse(encoded + ";").value(), "round trip with the final ';'");
            // the descriptor is the value's first 81 characters, whatever the suffix
            assertEquals(s.substring(0, CuObjDescriptor.LENGTH).toLowerCase(java.util.Locale.ROOT),
                    h.descriptor().format());
        }
    }

    @FuzzTest
    @DictionaryEntries({"80", "01", "00", "ffffffff", "ffffffffffffffff", "0000000000000080",
            "00000000000000000000ffff7f000001", "00000000000000000000000000000000"})
    void rcToken(byte[] input) {
        String s = text(input);
        TokenResult<RcToken> r = RcToken.parse(s);
        assertNamedRefusal(r, RC_TOKEN_REFUSALS, s);
        if (r.isOk()) {
            RcToken t = r.value();
            assertEquals(s.toLowerCase(java.util.Locale.ROOT), t.format(), "accepted token is not canonical");
            assertEquals(t, RcToken.parse(t.format()).value(), "round trip");
            // what the PREPARE path does next with the token: pick the codec by transport byte
            TokenResult<EndpointInfo> e = RcTokenCodecs.decode(t, PREPARE_CONTEXT);
            assertNamedRefusal(e, ENDPOINT_REFUSALS, s);
            if (e.isOk()) {
                TokenResult<RcToken> again = RcTokenCodecs.encode(e.value(), t.remoteRegion());
                assertTrue(again.isOk(), () -> "decoded endpoint cannot be encoded: " + again);
                assertEquals(t.transport(), again.value().transport(), "transport byte of the re-encoded token");
                assertEquals(t.remoteRegion(), again.value().remoteRegion(), "region of the re-encoded token");
            }
        }
    }

    @FuzzTest
    @DictionaryEntries({":", "80", "01", "ffffffffffffffff", "7fffffffffffffff", "8000000000000000"})
    void rcTokenHeader(byte[] input) {
        String s = text(input);
        TokenResult<RcTokenHeader> r = RcTokenHeader.parse(s);
        assertNamedRefusal(r, RC_HEADER_REFUSALS, s);
        if (r.isOk()) {
            RcTokenHeader h = r.value();
            assertEquals(h, RcTokenHeader.parse(h.format()).value(), "round trip");
            assertEquals(s.substring(0, RcToken.LENGTH).toLowerCase(java.util.Locale.ROOT), h.token().format());
        }
    }

    @FuzzTest
    @DictionaryEntries({",", " ", "/", "/0", "/32", "/128", "::", "::1", "::ffff:", "127.0.0.1", "10.0.0.0/8",
            "fe80::1%eth0", "[::1]"})
    void allowList(byte[] input) {
        String s = text(input);
        TokenResult<AddressPolicy> r = AddressPolicy.parse(s, () -> OWN_ADDRESSES);
        assertNamedRefusal(r, EnumSet.of(TokenError.BAD_CIDR), s);
        if (r.isOk()) {
            AddressPolicy p = r.value();
            String normalised = p.allowList();
            TokenResult<AddressPolicy> again = AddressPolicy.parse(normalised, () -> OWN_ADDRESSES);
            assertTrue(again.isOk(), () -> "the normalised list " + Quote.of(normalised) + " is refused: " + again);
            assertEquals(normalised, again.value().allowList(), "round trip of the normalised list");
            // the policy answers for every kind of address without throwing
            for (InetAddress a : new InetAddress[] {address("127.0.0.1"), address("::1"), address("0.0.0.0"),
                    address("192.0.2.7"), address("::ffff:10.1.2.3"), address("224.0.0.1")}) {
                assertNamedRefusal(p.check(a), EnumSet.of(TokenError.ADDRESS_NOT_ALLOWED), s);
            }
        }
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal); // literals only: nothing is resolved
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(literal, e);
        }
    }

    /** Inputs in assertion messages, control characters escaped. */
    static final class Quote {
        private Quote() {
        }

        static String of(String s) {
            StringBuilder b = new StringBuilder(s.length() + 2).append('"');
            s.codePoints().forEach(c -> {
                if (c < 0x20 || c == 0x7F || c == '"' || c == '\\') {
                    b.append(String.format("\\u%04x", c));
                } else {
                    b.appendCodePoint(c);
                }
            });
            return b.append('"').toString();
        }
    }
}
