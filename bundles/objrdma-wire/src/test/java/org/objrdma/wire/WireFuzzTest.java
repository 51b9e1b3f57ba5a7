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
            TokenError.BAD_SEPARATOR, TokenError.NOT_HEX, TokenError.BAD_HAS_GID);
    private static final Set<TokenError> HEADER_ERRORS = EnumSet.of(TokenError.EMPTY, TokenError.WRONG_LENGTH,
            TokenError.BAD_SEPARATOR, TokenError.NOT_HEX, TokenError.BAD_HAS_GID, TokenError.TRAILING_CHARACTERS,
            TokenError.BAD_SUFFIX);
    private static final Set<TokenError> RC_ERRORS = EnumSet.of(TokenError.EMPTY, TokenError.WRONG_LENGTH,
            TokenError.NOT_HEX);
    private static final Set<TokenError> RC_HEADER_ERRORS = EnumSet.of(TokenError.EMPTY, TokenError.WRONG_LENGTH,
            TokenError.NOT_HEX, TokenError.TRAILING_CHARACTERS, TokenError.BAD_SUFFIX);
    private static final Set<TokenError> KEY_ERRORS = EnumSet.of(TokenError.EMPTY, TokenError.BAD_KEY);

    static CuObjDescriptor randomDescriptor(Random r) {
        return new CuObjDescriptor(r.nextLong(), r.nextLong() & 0xFFFF_FFFFL, r.nextInt(), r.nextInt() & 0xFFFF,
                r.nextInt() & 0xFF_FFFF, r.nextBoolean(), new Gid(r.nextLong(), r.nextLong()));
    }

    static RcToken randomToken(Random r) {
        return new RcToken(r.nextInt(256), r.nextLong() & 0xFFFF_FFFFL, new Gid(r.nextLong(), r.nextLong()), r.nextInt(),
                r.nextLong(), r.nextLong(), r.nextInt(256), r.nextInt(65536));
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
                    : Optional.of(new CuObjTokenHeader.Span(r.nextLong(), r.nextLong()));
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
