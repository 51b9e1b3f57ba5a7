package org.objrdma.verbs.internal;

import java.util.Dictionary;
import java.util.Optional;
import org.objrdma.verbs.internal.ffi.Mlx5DvLibrary;

/**
 * Whether cuObject's Dynamic Connection transport can be driven next to the libibverbs in use: probed once per
 * activation (libmlx5 beside that library or the system one, every entry point DC calls), published on the
 * {@code VerbsRuntime} service and logged once. Never throws: without libmlx5 the verbs transport serves RC alone and
 * the reason is what operators read.
 */
final class DcAvailability {

    /** Service property of {@code VerbsRuntime}: whether the DC entry points are usable ({@code Boolean}). */
    static final String PROPERTY_DC_AVAILABLE = "objrdma.verbs.dc.available";
    /** Service property of {@code VerbsRuntime}: why DC is not usable, absent when it is ({@code String}). */
    static final String PROPERTY_DC_CAUSE = "objrdma.verbs.dc.unavailability.cause";

    private DcAvailability() {
    }

    /** Empty if DC can be driven beside {@code verbsLibrary}, else why not. */
    static Optional<String> probe(String verbsLibrary) {
        try (Mlx5DvLibrary mlx5 = Mlx5DvLibrary.load(verbsLibrary)) {
            return mlx5.unavailabilityCause();
        }
    }

    /** Puts the outcome of a probe into a service's properties. */
    static void publishInto(Dictionary<String, Object> properties, Optional<String> cause) {
        properties.put(PROPERTY_DC_AVAILABLE, cause.isEmpty());
        cause.ifPresent(c -> properties.put(PROPERTY_DC_CAUSE, c));
    }
}
