package org.objrdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Transport;
import org.objrdma.testsupport.Configs;
import org.objrdma.verbs.testsupport.SoftVerbs;

/**
 * A configuration change of PID org.objrdma.verbs on the software device: a bad value and the same settings
 * leave the published transport as it is; a valid change restarts, publishing a new transport.
 */
class VerbsComponentModifiedTest {

    private static VerbsConfig config(Map<String, Object> extra) {
        Map<String, Object> m = new HashMap<>(extra);
        m.putIfAbsent("library_path", SoftVerbs.library());
        return Configs.of(VerbsConfig.class, m);
    }

    @Test
    void aBadValueOrTheSameSettingsChangeNothingAValidChangeRestarts() {
        try (ComponentFixture f = ComponentFixture.software()) {
            Transport first = f.transport();
            for (Map<String, Object> bad : java.util.List.<Map<String, Object>>of(Map.of("port", 0),
                    Map.of("poller_idle", "sometimes"), Map.of("gid_index", -7))) {
                f.component.modified(f.bundle.context, config(bad));
                assertSame(first, f.transport(), bad.toString());
            }
            f.component.modified(f.bundle.context, config(Map.of()));
            assertSame(first, f.transport(), "the same settings restart nothing");

            f.component.modified(f.bundle.context, config(Map.of("poller_backoff_max_park_us", 200L)));
            Transport second = f.transport();
            assertNotSame(first, second);
            assertEquals(1, f.transports().size());
            assertEquals(1, f.bundle.live(org.objrdma.verbs.VerbsRuntime.class).size());
        }
    }
}
