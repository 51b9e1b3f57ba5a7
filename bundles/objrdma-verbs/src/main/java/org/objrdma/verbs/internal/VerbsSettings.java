package org.objrdma.verbs.internal;

import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Locale;
import org.objrdma.verbs.internal.ffi.VerbsLibrary;
import org.objrdma.verbs.internal.transport.IdleStrategy;
import org.objrdma.verbs.internal.transport.VerbsTransport;

/**
 * {@link VerbsConfig} validated: every value checked once at activation, with a message naming the property.
 *
 * @param library    what {@link VerbsLibrary#load} gets
 * @param deviceName device to publish, or empty for all
 * @param port       port number
 * @param gidIndex   GID index, or -1 for automatic
 * @param gidPrefix  lower-case hex digits a chosen GID starts with, or empty
 * @param poller     poller idle strategy
 */
record VerbsSettings(String library, String deviceName, int port, int gidIndex, String gidPrefix,
                     VerbsTransport.PollerSettings poller) {

    /** System property naming the library when {@code library.path} is empty. */
    static final String LIBRARY_PROPERTY = "objrdma.verbs.library";

    /**
     * @throws IllegalArgumentException naming the first invalid property
     */
    static VerbsSettings from(VerbsConfig c) {
        String library = c.library_path() == null ? "" : c.library_path().strip();
        String source = "library.path";
        if (library.isEmpty()) {
            library = System.getProperty(LIBRARY_PROPERTY, "").strip();
            source = "system property " + LIBRARY_PROPERTY;
        }
        if (library.isEmpty()) {
            library = VerbsLibrary.DEFAULT_LIBRARY;
        } else if (library.contains("/") && !Path.of(library).isAbsolute()) {
            throw new IllegalArgumentException(source + " must be an absolute path or a bare file name, was '"
                    + library + "'");
        }
        String device = c.device_name() == null ? "" : c.device_name().strip();
        if (c.port() < 1 || c.port() > 255) {
            throw new IllegalArgumentException("port must be 1..255, was " + c.port());
        }
        if (c.gid_index() < -1 || c.gid_index() > 255) {
            throw new IllegalArgumentException("gid.index must be -1 (automatic) or 0..255, was " + c.gid_index());
        }
        String prefix = c.gid_prefix() == null ? "" : c.gid_prefix().strip().replace(":", "").toLowerCase(Locale.ROOT);
        if (prefix.length() > 32 || !prefix.chars().allMatch(HexFormat::isHexDigit)) {
            throw new IllegalArgumentException("gid.prefix must be at most 32 hex digits (colons allowed), was '"
                    + c.gid_prefix() + "'");
        }
        if (!prefix.isEmpty() && c.gid_index() >= 0) {
            throw new IllegalArgumentException("gid.prefix and gid.index exclude each other: set gid.index to -1 to"
                    + " use the prefix, or clear the prefix");
        }
        IdleStrategy.Kind idle = IdleStrategy.Kind.parse(c.poller_idle());
        long park = c.poller_backoff_max_park_us();
        if (park < 1 || park > 1_000_000) {
            throw new IllegalArgumentException("poller.backoff.max.park.us must be 1..1000000, was " + park);
        }
        return new VerbsSettings(library, device, c.port(), c.gid_index(), prefix,
                new VerbsTransport.PollerSettings(idle, park * 1_000));
    }
}
