package org.objrdma.store.fs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.BundleContext;
import org.objrdma.testsupport.FakeBundleContext;

/**
 * A configuration change of PID org.objrdma.store.fs on a real store in a temporary directory, with a fake
 * bundle context that records registrations: a bad value changes nothing, the same values change nothing,
 * a valid change restarts the store (unregister, close, open, register), and a root that cannot be opened
 * leaves the store open on the previous one.
 */
class FsStoreComponentModifiedTest {

    @TempDir
    Path dir;

    /** Registrations made through the fake context, and whether each was unregistered. */
    private final FakeBundleContext bundle = new FakeBundleContext();

    private BundleContext context() {
        return bundle.property("karaf.data", dir.toString()).context;
    }

    private Map<String, Object> config(String... keyValues) {
        Map<String, Object> m = new HashMap<>();
        m.put("root", dir.resolve("store").toString());
        m.put("credentials", "MODIFIEDKEY:modified-secret-0001");
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put(keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    @Test
    void badValuesAndSameValuesChangeNothingAValidChangeRestarts() throws Exception {
        FsStoreComponent component = new FsStoreComponent(null, context(), config());
        StoreEngine first = component.engine();
        assertEquals(1, bundle.all().size());

        for (String[] bad : new String[][] {{"max.object.size", "lots"}, {"fsync", "maybe"}, {"root", "relative/dir"},
                {"credentials", "x:y"}}) {
            component.modified(config(bad));
            assertSame(first, component.engine(), String.join("=", bad));
            assertEquals(1, bundle.all().size());
            assertFalse(bundle.all().get(0).isUnregistered(), "the running store was not unregistered");
        }
        component.modified(config());
        assertSame(first, component.engine(), "the same values restart nothing");

        component.modified(config("fsync", "false", "max.object.size", "1048576"));
        assertNotSame(first, component.engine());
        assertTrue(bundle.all().get(0).isUnregistered(), "the old registration went first");
        assertEquals(2, bundle.all().size());
        assertFalse(component.settings().fsync());
        assertEquals(1048576, component.settings().maxObjectSize());
        component.deactivate();
        assertTrue(bundle.all().get(1).isUnregistered());
    }

    @Test
    void aRootThatDoesNotOpenLeavesTheStoreOnThePreviousRoot() throws Exception {
        FsStoreComponent component = new FsStoreComponent(null, context(), config());
        Path file = Files.writeString(dir.resolve("a-file"), "not a directory");
        component.modified(config("root", file.resolve("store").toString()));
        assertEquals(dir.resolve("store"), component.settings().root());
        assertEquals(2, bundle.all().size(), "closed, failed on the new root, opened again on the previous one");
        assertTrue(bundle.all().get(0).isUnregistered());
        assertFalse(bundle.all().get(1).isUnregistered());
        component.engine().createBucket("MODIFIEDKEY", "still-works");
        component.deactivate();
    }

    @Test
    void changesNamesTheChangedProperties() {
        FsStoreSettings a = FsStoreSettings.from(config(), dir.toString());
        FsStoreSettings b = FsStoreSettings.from(config("fsync", "false", "credentials", "OTHERKEY:other-secret-01"),
                dir.toString());
        assertEquals("fsync, credentials", FsStoreComponent.changes(a, b));
        assertEquals("", FsStoreComponent.changes(a, FsStoreSettings.from(config(), dir.toString())));
    }
}
