package org.objrdma.api.telemetry;

import static org.junit.jupiter.api.Assertions.*;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TelemetryContractTest {
    @Test
    void idsAreUniqueStableLookingAndDocumented() {
        Set<String> ids = new HashSet<>();
        for (Counter c : Counter.values()) {
            assertTrue(ids.add(c.id()), "duplicate id " + c.id());
            assertTrue(c.id().matches("objrdma(\\.[a-z_0-9]+)+"), c.id());
            assertFalse(c.description().isBlank(), c.name());
            assertSame(c, Counter.fromId(c.id()));
        }
        assertNull(Counter.fromId("nope"));
    }

    @Test
    void noopCountsNothingAndReportsEveryCounter() {
        Telemetry.NOOP.increment(Counter.SESSIONS_PREPARED);
        Telemetry.NOOP.add(Counter.TRANSPORT_BYTES_WRITTEN, 1000);
        assertEquals(0, Telemetry.NOOP.value(Counter.SESSIONS_PREPARED));
        assertEquals(Counter.values().length, Telemetry.NOOP.snapshot().size());
        assertFalse(Telemetry.NOOP.view() instanceof Telemetry, "the view cannot be cast back to a writer");
        assertThrows(UnsupportedOperationException.class,
                () -> Telemetry.NOOP.snapshot().put(Counter.S3_ERRORS, 1L));
    }
}
