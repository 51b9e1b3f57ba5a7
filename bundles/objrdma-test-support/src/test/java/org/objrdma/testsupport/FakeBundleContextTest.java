package org.objrdma.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Hashtable;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.osgi.framework.ServiceRegistration;

class FakeBundleContextTest {

    @Test
    void recordsRegistrationsAndAnswersPropertiesItWasGiven() {
        FakeBundleContext bundle = new FakeBundleContext().property("karaf.data", "/tmp/data");
        assertEquals("/tmp/data", bundle.context.getProperty("karaf.data"));
        assertNull(bundle.context.getProperty("other"));

        Hashtable<String, Object> props = new Hashtable<>();
        props.put("k", "v");
        ServiceRegistration<Runnable> r = bundle.context.registerService(Runnable.class, () -> { }, props);
        assertEquals(1, bundle.live(Runnable.class).size());
        assertEquals("v", bundle.all().get(0).properties.get("k"));
        r.unregister();
        assertTrue(bundle.all().get(0).isUnregistered());
        assertEquals(List.of(), bundle.live());
        assertThrows(IllegalStateException.class, r::unregister, "a second unregister throws, as the framework's does");
        assertThrows(UnsupportedOperationException.class, () -> bundle.context.getBundles());
    }
}
