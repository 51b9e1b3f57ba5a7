package org.objrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UserCredentialsTest {

    @Test
    void parsesTheListInOrderAndFormatsItBack() {
        UserCredentials users = UserCredentials.parse(" ALICE:secret-1234 , bob.k-2_x:p@ss:w0rd!");
        assertEquals(List.of("ALICE", "bob.k-2_x"), List.copyOf(users.asMap().keySet()));
        assertEquals("p@ss:w0rd!", users.secret("bob.k-2_x").orElseThrow(), "the first colon ends the key");
        assertTrue(users.knows("ALICE"));
        assertFalse(users.knows(null));
        assertTrue(users.secret(null).isEmpty());
        assertEquals(2, users.size());
        assertEquals("ALICE:secret-1234,bob.k-2_x:p@ss:w0rd!", users.toSpec());
        assertEquals(users.asMap(), UserCredentials.parse(users.toSpec()).asMap());
    }

    @Test
    void emptyOrBlankIsNoUsers() {
        assertTrue(UserCredentials.parse(null).isEmpty());
        assertTrue(UserCredentials.parse(" ").isEmpty());
        assertTrue(UserCredentials.of(Map.of()).isEmpty());
    }

    @Test
    void eachRefusalNamesTheEntryAndNeverTheSecret() {
        assertRefused("ALICE:secret-1234,nocolon", "entry 2 is not ACCESSKEY:SECRET");
        assertRefused("AB:secret-1234", "entry 1: the access key must be 3..128 of A-Z a-z 0-9 _ - .");
        assertRefused("A/B:secret-1234", "entry 1: the access key must be 3..128 of A-Z a-z 0-9 _ - .");
        assertRefused("ALICE:short", "entry 1 (ALICE): the secret must be 8..256 printable ASCII characters"
                + " without comma or space");
        assertRefused("ALICE:has space here", "entry 1 (ALICE): the secret must be");
        assertRefused("ALICE:secret-1234,ALICE:secret-5678", "entry 2: access key ALICE appears twice");
        assertRefused("ALICE:secret-1234,", "entry 2 is not ACCESSKEY:SECRET");
        assertRefused("ALICE:" + "x".repeat(257), "the secret must be 8..256");
        assertRefused("K".repeat(129) + ":secret-1234", "the access key must be 3..128");
    }

    private static void assertRefused(String spec, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> UserCredentials.parse(spec));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        for (String secret : List.of("secret-1234", "secret-5678", "has space here")) {
            assertFalse(e.getMessage().contains(secret), e.getMessage());
        }
    }

    @Test
    void ofChecksTheMapByTheSameRules() {
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("ALICE", "secret-1234");
        bad.put("x", "secret-5678");
        assertThrows(IllegalArgumentException.class, () -> UserCredentials.of(bad));
    }

    @Test
    void generatedUsersFollowTheRulesTheyAreCheckedBy() {
        SecureRandom random = new SecureRandom();
        for (int i = 0; i < 50; i++) {
            UserCredentials one = UserCredentials.generate(random);
            assertEquals(1, one.size());
            String key = one.asMap().keySet().iterator().next();
            assertEquals(20, key.length());
            assertEquals(40, one.secret(key).orElseThrow().length());
            assertEquals(one.asMap(), UserCredentials.parse(one.toSpec()).asMap());
        }
        assertTrue(UserCredentials.isAccessKey(UserCredentials.randomAccessKey(random)));
        assertFalse(UserCredentials.isAccessKey("no"));
        assertFalse(UserCredentials.isAccessKey(null));
    }

    @Test
    void toStringNamesKeysOnly() {
        String text = UserCredentials.parse("ALICE:secret-1234").toString();
        assertTrue(text.contains("ALICE"), text);
        assertFalse(text.contains("secret-1234"), text);
    }
}
