package org.objrdma.testsupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigsTest {

    @interface Sample {
        int port() default 7471;
        long max_bytes() default 1024;
        String[] names() default {"a"};
        String required();
        boolean fsync$_$enabled() default true;
    }

    @Test
    void defaultsUnlessSetByMemberReferencePropertyNameOrMemberName() {
        Sample d = Configs.of(Sample.class).build();
        assertEquals(7471, d.port());
        assertEquals(1024, d.max_bytes());
        assertArrayEquals(new String[] {"a"}, d.names());
        assertEquals(Sample.class, d.annotationType());
        IllegalStateException missing = assertThrows(IllegalStateException.class, d::required);
        assertTrue(missing.getMessage().contains("required"), missing.getMessage());

        Sample s = Configs.of(Sample.class).with(Sample::port, 1).set("max.bytes", 5L).set("required", "r")
                .set("fsync-enabled", false).build();
        assertEquals(1, s.port());
        assertEquals(5, s.max_bytes());
        assertEquals("r", s.required());
        assertEquals(false, s.fsync$_$enabled());
        assertEquals(5, Configs.of(Sample.class, Map.of("max_bytes", 5L)).max_bytes());
    }

    @Test
    void anUnknownNameOrAValueOfAnotherTypeIsRefused() {
        assertThrows(java.util.NoSuchElementException.class, () -> Configs.of(Sample.class).set("prot", 1));
        ClassCastException typed = assertThrows(ClassCastException.class,
                () -> Configs.of(Sample.class).set("port", 1L));
        assertEquals("Sample.port is int, not Long", typed.getMessage());
        assertThrows(NullPointerException.class, () -> Configs.of(Sample.class).set("required", null));
    }

    @Test
    void propertyNamesFollowDeclarativeServices() {
        assertEquals("library.path", Configs.propertyName("library_path"));
        assertEquals("a_b", Configs.propertyName("a__b"));
        assertEquals("a-b", Configs.propertyName("a$_$b"));
        assertEquals("a$b", Configs.propertyName("a$$b"));
    }
}
