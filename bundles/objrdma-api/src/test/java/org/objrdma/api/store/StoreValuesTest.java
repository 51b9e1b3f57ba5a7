package org.objrdma.api.store;

import static org.junit.jupiter.api.Assertions.*;

import org.junit.jupiter.api.Test;

class StoreValuesTest {
    @Test
    void targetsAreValidated() {
        assertEquals("/b/k", ObjectTarget.of("b", "k").path());
        ObjectTarget part = ObjectTarget.part("b", "k", "u1", 3);
        assertEquals(3, part.partNumber());
        assertThrows(IllegalArgumentException.class, () -> ObjectTarget.of("", "k"));
        assertThrows(IllegalArgumentException.class, () -> ObjectTarget.of("b", null));
        assertThrows(IllegalArgumentException.class, () -> ObjectTarget.part("b", "k", "u", 0));
        assertThrows(IllegalArgumentException.class, () -> new ObjectTarget("b", "k", null, null, 10_001));
        assertThrows(IllegalArgumentException.class, () -> new ObjectTarget("b", "k", null, "u", 0));
        StoreException e = new StoreException(StoreError.NO_SUCH_KEY, "b/k");
        assertEquals(StoreError.NO_SUCH_KEY, e.error());
    }
}
