package org.objrdma.verbs.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.objrdma.testsupport.FakeBundleContext;
import org.objrdma.verbs.VerbsRuntime;
import org.objrdma.verbs.testsupport.SoftVerbs;

/** The component probes DC once per activation and publishes the outcome, with the reason, on VerbsRuntime. */
class DcAvailabilityTest {

    private static Map<String, Object> runtimeProperties(ComponentFixture f) {
        List<FakeBundleContext.Registered> r = f.bundle.live(VerbsRuntime.class);
        assertEquals(1, r.size());
        return r.getFirst().properties;
    }

    @Test
    void theSoftwareDeviceWithItsStandInLibmlx5OffersDc() {
        try (ComponentFixture f = ComponentFixture.software()) {
            Map<String, Object> p = runtimeProperties(f);
            assertEquals(Boolean.TRUE, p.get(DcAvailability.PROPERTY_DC_AVAILABLE));
            assertNull(p.get(DcAvailability.PROPERTY_DC_CAUSE));
        }
    }

    @Test
    void aDeviceWithoutLibmlx5BesideItIsPublishedForRcAndSaysWhyDcIsNot() throws Exception {
        Path dir = Files.createTempDirectory("verbs-nomlx5");
        Path copy = Files.copy(Path.of(SoftVerbs.library()), dir.resolve("libibverbs.so.1"));
        try (ComponentFixture f = ComponentFixture.activate(Map.of("library_path", copy.toString()))) {
            assertTrue(f.runtime().isAvailable(), f.runtime().unavailabilityCause().orElse(""));
            Map<String, Object> p = runtimeProperties(f);
            assertEquals(Boolean.FALSE, p.get(DcAvailability.PROPERTY_DC_AVAILABLE));
            assertEquals("no libmlx5.so.1 beside " + copy + " (DC needs the mlx5 provider's direct verbs)",
                    p.get(DcAvailability.PROPERTY_DC_CAUSE));
        } finally {
            Files.deleteIfExists(copy);
            Files.delete(dir);
        }
    }
}
