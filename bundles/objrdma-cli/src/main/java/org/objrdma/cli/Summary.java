package org.objrdma.cli;

import java.util.Locale;
import java.util.stream.Collectors;

/** The line a finished transfer prints: what moved, how fast, over which path; declines as warnings on stderr. */
final class Summary {
    private Summary() {
    }

    static void print(Main main, CommonOptions options, String what, FileTransfers.Outcome o) {
        for (String d : o.declines()) {
            main.err.println("objrdma: warning: " + d + "; moved over HTTP");
        }
        if (options.quiet) {
            return;
        }
        double seconds = Math.max(1e-9, o.nanos() / 1e9);
        main.out.println(String.format(Locale.ROOT, "%s: %d bytes in %.3f s, %s/s (%.0f bytes/s) over %s", what,
                o.bytes(), seconds, Sizes.human(o.bytes() / seconds), o.bytes() / seconds,
                o.paths().stream().map(p -> p.label()).collect(Collectors.joining("+"))));
    }
}
