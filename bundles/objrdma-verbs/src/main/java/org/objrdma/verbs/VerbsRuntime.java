package org.objrdma.verbs;

import java.util.List;
import java.util.Optional;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Whether the verbs path works in this process and, if not, why. Registered whenever the
 * {@code org.objrdma.verbs} component is active, with or without devices, so the reason a machine has no
 * verbs transport can be read at any time (shell, JMX, tests), not only in the log.
 */
@ProviderType
public interface VerbsRuntime {
    /** Service property: {@link #isAvailable()} ({@code Boolean}). */
    String PROPERTY_AVAILABLE = "objrdma.verbs.available";
    /** Service property: {@link #unavailabilityCause()}, absent when available ({@code String}). */
    String PROPERTY_CAUSE = "objrdma.verbs.unavailability.cause";
    /** Service property: {@link #library()} ({@code String}). */
    String PROPERTY_LIBRARY = "objrdma.verbs.library";

    /** True when libibverbs loaded and at least one configured device is published. */
    boolean isAvailable();

    /**
     * Why nothing is published, e.g. {@code no RDMA devices (ibv_get_device_list: ENOSYS — the kernel has
     * no RDMA support)}; empty when available.
     */
    Optional<String> unavailabilityCause();

    /** The library that was loaded, as configured: a path or the bare name the system loader resolves. */
    String library();

    /** Names of the published devices, in the order libibverbs listed them. */
    List<String> devices();

    /** Why each device libibverbs listed but the component did not publish was left out; empty if none. */
    List<String> skippedDevices();
}
