package org.objrdma.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class AgentKeysTest {

    @Test
    void readsHexBase64AndTheirPrefixes() {
        byte[] key = AgentKeys.generate();
        assertEquals(32, key.length);
        String hex = HexFormat.of().formatHex(key);
        assertArrayEquals(key, AgentKeys.parse(hex).value());
        assertArrayEquals(key, AgentKeys.parse(hex.toUpperCase()).value());
        assertArrayEquals(key, AgentKeys.parse("hex:" + hex).value());
        assertArrayEquals(key, AgentKeys.parse("  " + hex + "\n").value(), "surrounding whitespace of a .cfg line");
        assertArrayEquals(key, AgentKeys.parse("base64:" + Base64.getEncoder().encodeToString(key)).value());
        assertArrayEquals(key, AgentKeys.parse(Base64.getUrlEncoder().encodeToString(key)).value());
        assertEquals(hex, AgentKeys.toHex(key));
    }

    @Test
    void refusesEmptyMalformedAndBadLengthsWithoutEchoingTheKey() {
        assertEquals(TokenError.EMPTY, AgentKeys.parse(null).error());
        assertEquals(TokenError.EMPTY, AgentKeys.parse("   ").error());
        assertEquals(TokenError.BAD_KEY, AgentKeys.parse("hex:abc").error(), "odd digits");
        assertEquals(TokenError.BAD_KEY, AgentKeys.parse("hex:zz").error());
        assertEquals(TokenError.BAD_KEY, AgentKeys.parse("base64:!!!").error());
        assertEquals(TokenError.BAD_KEY, AgentKeys.parse("not a key at all!").error());
        assertEquals(TokenError.BAD_KEY, AgentKeys.parse("00".repeat(15)).error(), "15 bytes");
        assertEquals(TokenError.BAD_KEY, AgentKeys.parse("00".repeat(65)).error(), "65 bytes");
        assertTrue(AgentKeys.parse("00".repeat(16)).isOk());
        assertTrue(AgentKeys.parse("00".repeat(64)).isOk());
        String secretLooking = "ab".repeat(70);
        assertFalse(AgentKeys.parse(secretLooking).detail().contains(secretLooking));
    }

    @Test
    void theDcKeyDerivationIsDeterministicAndSeparatesKeys() {
        assertArrayEquals(AgentKeys.fromDcKey(0xffeeddccL), AgentKeys.fromDcKey(0xffeeddccL));
        assertEquals(32, AgentKeys.fromDcKey(1).length);
        assertFalse(Arrays.equals(AgentKeys.fromDcKey(0xffeeddccL), AgentKeys.fromDcKey(0xffeeddcdL)));
        assertFalse(Arrays.equals(AgentKeys.generate(), AgentKeys.generate()));
    }

    /**
     * Test vector computed outside Java (Python's hmac module): HMAC-SHA256(key = the AWS documentation's example
     * secret, message = the label). A client or server in another language must produce exactly these bytes.
     */
    @Test
    void principalKeyMatchesTheVector() {
        assertEquals("objrdma cuobj agent key for principal v1", AgentKeys.PRINCIPAL_LABEL);
        assertEquals("474aa0f89882978ab502b8521749922ef7d66cf9f5d68fcefaf3da0438d05aef",
                HexFormat.of().formatHex(AgentKeys.forPrincipal("wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")));
        assertFalse(Arrays.equals(AgentKeys.forPrincipal("secret-a"), AgentKeys.forPrincipal("secret-b")));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> AgentKeys.forPrincipal(""));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> AgentKeys.forPrincipal(null));
    }
}
