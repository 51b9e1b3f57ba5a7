package org.objrdma.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Byte counts as users type them ({@code 4096}, {@code 4k}, {@code 4KiB}, {@code 8M}, {@code 1GiB}: binary units). */
final class Sizes {
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([kmgt]?)(i?b)?");

    private Sizes() {
    }

    static long parse(String text) {
        Matcher m = SIZE.matcher(text == null ? "" : text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a size (e.g. 4096, 4KiB, 8MiB, 1GiB)");
        }
        int shift = switch (m.group(2)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> 0;
        };
        long n = Long.parseLong(m.group(1));
        if (n > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("'" + text + "' is too large");
        }
        return n << shift;
    }

    /** {@code 1.5 MiB}-style. */
    static String human(double bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        while (bytes >= 1024 && u < units.length - 1) {
            bytes /= 1024;
            u++;
        }
        return u == 0 ? String.format(Locale.ROOT, "%.0f %s", bytes, units[u])
                : String.format(Locale.ROOT, "%.1f %s", bytes, units[u]);
    }
}
