package org.objrdma.store.fs.internal;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.wire.UserCredentials;

class FsStoreSettingsTest {
    private static String failure(Map<String, ?> props, String karafData) {
        return assertThrows(IllegalArgumentException.class, () -> FsStoreSettings.from(props, karafData)).getMessage();
    }

    @Test
    void defaults() {
        FsStoreSettings s = FsStoreSettings.from(Map.of(), "/opt/karaf/data");
        assertEquals(Path.of("/opt/karaf/data/objrdma/store"), s.root());
        assertEquals(StoreLimits.MAX_OBJECT_SIZE, s.maxObjectSize());
        assertTrue(s.fsync());
        assertTrue(s.credentials().isEmpty());
    }

    @Test
    void valuesAsStringsFromACfgFile() {
        FsStoreSettings s = FsStoreSettings.from(Map.of("root", "/srv/store", "max.object.size", "1048576",
                "fsync", "FALSE", "credentials", "AKIA1:secret-one, AKIA2:se:cr/et+2"), null);
        assertEquals(Path.of("/srv/store"), s.root());
        assertEquals(1048576, s.maxObjectSize());
        assertFalse(s.fsync());
        assertEquals("secret-one", s.credentials().secret("AKIA1").orElseThrow());
        assertEquals("se:cr/et+2", s.credentials().secret("AKIA2").orElseThrow());
        assertEquals(2L, FsStoreSettings.from(Map.of("max.object.size", 2L, "fsync", true), "/d").maxObjectSize());
    }

    @Test
    void badValuesNameTheProperty() {
        assertTrue(failure(Map.of(), null).startsWith("root:"));
        assertTrue(failure(Map.of("root", "relative/dir"), "/d").startsWith("root:"));
        assertTrue(failure(Map.of("root", "/a\0b"), "/d").startsWith("root:"));
        for (Object bad : new Object[] {"lots", "0", "-5", String.valueOf(StoreLimits.MAX_OBJECT_SIZE + 1), 1.5d}) {
            Map<String, Object> props = new HashMap<>();
            props.put("max.object.size", bad);
            assertTrue(failure(props, "/d").startsWith("max.object.size:"), String.valueOf(bad));
        }
        assertTrue(failure(Map.of("fsync", "yes"), "/d").startsWith("fsync:"));
        for (String bad : new String[] {"nocolon", "ab:short", "a:longenoughsecret", "GOOD1:secret-one,GOOD1:secret-two",
                "GOOD1:has space in it", "GOOD1:secret-one,", "bad key:secret-one"}) {
            String message = failure(Map.of("credentials", bad), "/d");
            assertTrue(message.startsWith("credentials:"), bad + " -> " + message);
            assertFalse(message.contains("secret-one") || message.contains("longenoughsecret"), "secrets never printed");
        }
    }

    @Test
    void generatedCredentialsParseBack() {
        UserCredentials generated = UserCredentials.generate(new SecureRandom());
        UserCredentials parsed = UserCredentials.parse(generated.toSpec());
        assertEquals(generated.asMap(), parsed.asMap());
        String key = generated.asMap().keySet().iterator().next();
        assertEquals(20, key.length());
        assertEquals(40, generated.asMap().get(key).length());
        assertFalse(generated.toString().contains(generated.asMap().get(key)), "toString hides secrets");
    }
}
