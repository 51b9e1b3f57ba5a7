package org.objrdma.store.fs.internal;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import org.objrdma.api.store.StoreLimits;
import org.objrdma.wire.UserCredentials;

/**
 * The checked configuration of the file store. Values come as Config Admin gives them (typed, or strings
 * from a {@code .cfg} file); anything malformed fails with a message naming the property, so the component
 * does not start on a guess.
 *
 * @param root          absolute store directory
 * @param maxObjectSize bytes
 * @param fsync         whether writes are forced to disk before they return
 * @param credentials   the users (possibly none: the component then generates one)
 */
record FsStoreSettings(Path root, long maxObjectSize, boolean fsync, UserCredentials credentials) {
    static final String ROOT = "root";
    static final String MAX_OBJECT_SIZE = "max.object.size";
    static final String FSYNC = "fsync";
    static final String CREDENTIALS = "credentials";

    static FsStoreSettings from(Map<String, ?> properties, String karafData) {
        return new FsStoreSettings(root(properties.get(ROOT), karafData), maxObjectSize(properties.get(MAX_OBJECT_SIZE)),
                fsync(properties.get(FSYNC)), credentials(properties.get(CREDENTIALS)));
    }

    private static Path root(Object value, String karafData) {
        String s = value == null ? "" : value.toString().strip();
        if (s.isEmpty()) {
            if (karafData == null || karafData.isBlank()) {
                throw new IllegalArgumentException(ROOT + ": empty, and the karaf.data system property that the "
                        + "default (${karaf.data}/objrdma/store) needs is not set");
            }
            s = karafData + "/objrdma/store";
        }
        try {
            Path p = Path.of(s);
            if (!p.isAbsolute()) {
                throw new IllegalArgumentException(ROOT + ": '" + s + "' is not an absolute path");
            }
            return p.normalize();
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException(ROOT + ": '" + s + "' is not a valid path: " + e.getReason());
        }
    }

    private static long maxObjectSize(Object value) {
        if (value == null) {
            return StoreLimits.MAX_OBJECT_SIZE;
        }
        long n;
        if (value instanceof Number number && !(value instanceof Double || value instanceof Float)) {
            n = number.longValue();
        } else {
            try {
                n = Long.parseLong(value.toString().strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(MAX_OBJECT_SIZE + ": '" + value + "' is not a whole number of bytes");
            }
        }
        if (n < 1 || n > StoreLimits.MAX_OBJECT_SIZE) {
            throw new IllegalArgumentException(MAX_OBJECT_SIZE + ": " + n + " is outside 1.."
                    + StoreLimits.MAX_OBJECT_SIZE + " (5 TiB)");
        }
        return n;
    }

    private static boolean fsync(Object value) {
        if (value == null) {
            return true;
        }
        if (value instanceof Boolean b) {
            return b;
        }
        return switch (value.toString().strip().toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(FSYNC + ": '" + value + "' is neither true nor false");
        };
    }

    private static UserCredentials credentials(Object value) {
        try {
            return UserCredentials.parse(value == null ? "" : value.toString());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(CREDENTIALS + ": " + e.getMessage(), e);
        }
    }
}
