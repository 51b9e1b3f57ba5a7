package org.objrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.EnumSet;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Gid;

/**
 * Fuzzes every parser of the package: random strings and mutations of valid values. A parser must never throw,
 * must refuse only with the errors its documentation names, and must round-trip what it accepts. Seeds are
 * fixed so a failure reproduces; the failing input is in the message.
 */
class WireFuzzTest {
    private static final int ROUNDS = 20_000;
    private static final String ALPHABET = "0123456789abcdefABCDEFxyz:;- \t\n\u0000é";

    private static final Set<TokenError> DESCRIPTOR_ERRORS = EnumSet.of(TokenError.EMPTY, TokenError.WRONG_LENGTH,
            TokenError.BAD_SEPARATOR, TokenError.NOT_HEX, TokenError.BAD_HAS_GID, TokenError.BAD_SIZE,
            TokenError.UNSPECIFIED_GID, TokenError.STRAY_GID);
    private static final Set<TokenError> HEADER_ERRORS = EnumSet.of(TokenError.EMPTY, TokenError.WRONG_LENGTH,
            TokenError.BAD_SEPARATOR, TokenError.NOT_HEX, TokenError.BAD_HAS_GID, TokenError.TRAILING_CHARACTERS,
            TokenError.BAD_SUFFIX, TokenError.BAD_SIZE, TokenError.UNSPECIFIED_GID, TokenError.STRAY_GID);
    private static final Set<TokenError> RC_ERRORS = EnumSet.of(TokenError.EMPTY, TokenError.WRONG_LENGTH,
            TokenError.NOT_HEX, TokenError.UNSPECIFIED_GID, TokenError.BAD_SIZE);
    private static final Set<TokenError> RC_HEADER_ERRORS = EnumSet.of(TokenError.EMPTY, TokenError.WRONG_LENGTH,
            TokenError.NOT_HEX, TokenError.TRAILING_CHARACTERS, TokenError.BAD_SUFFIX, TokenError.UNSPECIFIED_GID,
            TokenError.BAD_SIZE);
    private static final Set<TokenError> KEY_ERRORS = EnumSet.of(TokenError.EMPTY, TokenError.BAD_KEY);

    static CuObjDescriptor randomDescriptor(Random r) {
        boolean hasGid = r.nextBoolean();
        return new CuObjDescriptor(r.nextLong() >>> 1, Math.floorMod(r.nextLong(), 0xFFFF_FFFFL),
                r.nextInt(), r.nextInt() & 0xFFFF, r.nextInt() & 0xFF_FFFF, hasGid,
                hasGid ? new Gid(r.nextLong() | 1, r.nextLong()) : Gid.ZERO);
    }

    static RcToken randomToken(Random r) {
        return new RcToken(r.nextInt(256), r.nextLong() & 0xFFFF_FFFFL, new Gid(r.nextLong() | 1, r.nextLong()), r.nextInt(),
                r.nextLong() >>> 2, r.nextLong() >>> 2, r.nextInt(256), r.nextInt(65536));
    }

    /** A field of random width and content, biased to the edges (zeros, all ones, the top bit). */
    private static String edgyHex(Random r, int digits) {
        StringBuilder b = new StringBuilder(digits);
        int mode = r.nextInt(4);
        for (int i = 0; i < digits; i++) {
            b.append(switch (mode) {
                case 0 -> 'f';
                case 1 -> '0';
                case 2 -> i == 0 ? '8' : '0';
                default -> "0123456789abcdef".charAt(r.nextInt(16));
            });
        }
        return b.toString();
    }

    private static String randomString(Random r, int maxLength) {
        int n = r.nextInt(maxLength + 1);
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            b.append(ALPHABET.charAt(r.nextInt(ALPHABET.length())));
        }
        return b.toString();
    }

    /** One to three random edits: replace, insert, delete a character, or cut / repeat the tail. */
    private static String mutate(Random r, String s) {
        StringBuilder b = new StringBuilder(s);
        int edits = 1 + r.nextInt(3);
        for (int e = 0; e < edits; e++) {
            int at = b.isEmpty() ? 0 : r.nextInt(b.length());
            char c = ALPHABET.charAt(r.nextInt(ALPHABET.length()));
            switch (r.nextInt(5)) {
                case 0 -> { if (!b.isEmpty()) { b.setCharAt(at, c); } }
                case 1 -> b.insert(at, c);
                case 2 -> { if (!b.isEmpty()) { b.deleteCharAt(at); } }
                case 3 -> b.setLength(at);
                default -> b.append(b, at, b.length());
            }
        }
        return b.toString();
    }

    private static <T> TokenResult<T> safely(Function<String, TokenResult<T>> parser, String input) {
        try {
            TokenResult<T> r = parser.apply(input);
            assertNotNull(r, "null result for " + quote(input));
            return r;
        } catch (RuntimeException e) {
            fail("parser threw " + e + " for " + quote(input));
            return null;
        }
    }

    private static String quote(String s) {
        return "\"" + s.replace("\n", "\\n").replace("\t", "\\t").replace("\u0000", "\\0") + "\"";
    }

    private static void assertDocumented(TokenResult<?> r, Set<TokenError> allowed, String input) {
        if (!r.isOk()) {
            assertTrue(allowed.contains(r.error()), r.error() + " is not a documented refusal, input " + quote(input));
            assertTrue(!r.detail().isEmpty(), "empty detail for " + quote(input));
        }
    }

    @Test
    void descriptorParserNeverThrowsAndRoundTrips() {
        Random r = new Random(0xC0FFEE);
        for (int i = 0; i < ROUNDS; i++) {
            CuObjDescriptor d = randomDescriptor(r);
            String text = d.format();
            assertEquals(d, CuObjDescriptor.parse(text).value(), "round trip of " + text);
            assertEquals(d, CuObjDescriptor.parse(text.toUpperCase()).value());

            String mutant = mutate(r, text);
            TokenResult<CuObjDescriptor> m = safely(CuObjDescriptor::parse, mutant);
            assertDocumented(m, DESCRIPTOR_ERRORS, mutant);
            if (m.isOk()) {
                assertEquals(mutant.toLowerCase(), m.value().format(), "accepted input must be canonical modulo case");
            }
            String noise = randomString(r, 100);
            assertDocumented(safely(CuObjDescriptor::parse, noise), DESCRIPTOR_ERRORS, noise);
        }
    }

    @Test
    void headerParserNeverThrowsAndRoundTrips() {
        Random r = new Random(0xBEEF);
        for (int i = 0; i < ROUNDS; i++) {
            CuObjDescriptor d = randomDescriptor(r);
            Optional<CuObjTokenHeader.Span> span = r.nextBoolean() ? Optional.empty()
                    : Optional.of(new CuObjTokenHeader.Span(r.nextLong() >>> 1, r.nextLong() >>> 2));
            CuObjTokenHeader h = new CuObjTokenHeader(d, span);
            String text = h.format() + (r.nextBoolean() ? ";" : "");
            assertEquals(h, CuObjTokenHeader.parse(text).value(), "round trip of " + text);

            String mutant = mutate(r, text);
            TokenResult<CuObjTokenHeader> m = safely(CuObjTokenHeader::parse, mutant);
            assertDocumented(m, HEADER_ERRORS, mutant);
            if (m.isOk()) {
                // whatever is accepted names the descriptor its first 81 characters spell
                assertEquals(mutant.substring(0, 81).toLowerCase(), m.value().descriptor().format());
            }
            String noise = randomString(r, 140);
            assertDocumented(safely(CuObjTokenHeader::parse, noise), HEADER_ERRORS, noise);
        }
    }

    @Test
    void rcTokenParsersNeverThrowAndRoundTrip() {
        Random r = new Random(0xACE);
        for (int i = 0; i < ROUNDS; i++) {
            RcToken t = randomToken(r);
            String text = t.format();
            assertEquals(t, RcToken.parse(text).value(), "round trip of " + text);
            String mutant = mutate(r, text);
            TokenResult<RcToken> m = safely(RcToken::parse, mutant);
            assertDocumented(m, RC_ERRORS, mutant);
            if (m.isOk()) {
                assertEquals(mutant.toLowerCase(), m.value().format());
            }
            String headerMutant = mutate(r, text + ":" + Long.toHexString(r.nextLong()) + ":" + Long.toHexString(r.nextLong()));
            assertDocumented(safely(RcTokenHeader::parse, headerMutant), RC_HEADER_ERRORS, headerMutant);
            String noise = randomString(r, 120);
            assertDocumented(safely(RcToken::parse, noise), RC_ERRORS, noise);
            assertDocumented(safely(RcTokenHeader::parse, noise), RC_HEADER_ERRORS, noise);
        }
    }

    /**
     * Well-shaped input whose fields sit at the edges: every parser either accepts (and then the value round-trips
     * and obeys the semantic rules) or refuses with a documented error; none throws.
     */
    @Test
    void edgeValuedFieldsAreAcceptedOnlyWhenMeaningful() {
        Random r = new Random(0x5EED);
        for (int i = 0; i < ROUNDS; i++) {
            String d = edgyHex(r, 16) + ":" + edgyHex(r, 8) + ":" + edgyHex(r, 8) + ":" + edgyHex(r, 4) + ":"
                    + edgyHex(r, 6) + ":" + (r.nextBoolean() ? "1" : "0") + ":" + edgyHex(r, 16) + edgyHex(r, 16);
            TokenResult<CuObjDescriptor> pd = safely(CuObjDescriptor::parse, d);
            assertDocumented(pd, DESCRIPTOR_ERRORS, d);
            if (pd.isOk()) {
                CuObjDescriptor v = pd.value();
                assertTrue(v.regionSize() != 0xFFFF_FFFFL && v.remoteAddress() != -1, d);
                assertTrue(v.hasGid() ? !Ranges.isUnspecified(v.gid()) : v.gid().equals(Gid.ZERO), d);
                assertEquals(d, v.format());
            }
            String header = d + ":" + edgyHex(r, 1 + r.nextInt(16)) + ":" + edgyHex(r, 1 + r.nextInt(16));
            TokenResult<CuObjTokenHeader> ph = safely(CuObjTokenHeader::parse, header);
            assertDocumented(ph, HEADER_ERRORS, header);
            ph.toOptional().flatMap(CuObjTokenHeader::span).ifPresent(s -> assertTrue(s.size() >= 0 && s.address() != -1
                    && Long.compareUnsigned(s.address() + Math.max(s.size(), 1) - 1, s.address()) >= 0, header));
            String token = edgyHex(r, 2) + edgyHex(r, 8) + edgyHex(r, 32) + edgyHex(r, 8) + edgyHex(r, 16)
                    + edgyHex(r, 16) + edgyHex(r, 2) + edgyHex(r, 4);
            TokenResult<RcToken> pt = safely(RcToken::parse, token);
            assertDocumented(pt, RC_ERRORS, token);
            if (pt.isOk()) {
                RcToken t = pt.value();
                assertTrue(t.length() >= 0, token);
                assertTrue(t.isLoopbackMarker() || !Ranges.isUnspecified(t.gid()), token);
                assertEquals(t.length(), t.remoteRegion().length(), "no clamping");
            }
        }
    }

    @Test
    void agentKeyParserNeverThrows() {
        Random r = new Random(7);
        for (int i = 0; i < ROUNDS / 4; i++) {
            String noise = randomString(r, 150);
            assertDocumented(safely(AgentKeys::parse, noise), KEY_ERRORS, noise);
            String mutant = mutate(r, "hex:" + AgentKeys.toHex(AgentKeys.generate()));
            TokenResult<byte[]> m = safely(AgentKeys::parse, mutant);
            assertDocumented(m, KEY_ERRORS, mutant);
            if (m.isOk()) {
                assertTrue(m.value().length >= 16 && m.value().length <= 64);
            }
        }
    }
}
