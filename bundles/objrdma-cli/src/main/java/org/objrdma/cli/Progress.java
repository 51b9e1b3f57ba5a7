package org.objrdma.cli;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A one-line progress bar on stderr, redrawn at most every 200 ms, shown only when stderr is a terminal (not in
 * pipes, logs or tests) and not turned off; {@link #done} clears it.
 */
final class Progress {
    private static final int WIDTH = 30;
    private final PrintStream err;
    private final boolean shown;
    private final long total;
    private final long started = System.nanoTime();
    private long lastDraw;

    Progress(PrintStream err, boolean enabled, long total) {
        this.err = err;
        this.total = total;
        this.shown = enabled && total > 0;
    }

    /** True when stderr is a terminal: {@code System.console()} reports one (JDK 22+: {@code isTerminal}). */
    static boolean terminal() {
        java.io.Console c = System.console();
        return c != null && c.isTerminal();
    }

    void update(long done) {
        if (!shown) {
            return;
        }
        long now = System.nanoTime();
        if (now - lastDraw < 200_000_000L && done < total) {
            return;
        }
        lastDraw = now;
        int filled = (int) (WIDTH * Math.min(done, total) / total);
        double seconds = Math.max(1e-9, (now - started) / 1e9);
        err.print(String.format(Locale.ROOT, "\r[%s%s] %3d%% %s / %s  %s/s ", "#".repeat(filled),
                ".".repeat(WIDTH - filled), (int) (100 * done / total), Sizes.human(done), Sizes.human(total),
                Sizes.human(done / seconds)));
        err.flush();
    }

    void done() {
        if (shown && lastDraw != 0) {
            err.print("\r" + " ".repeat(WIDTH + 60) + "\r");
            err.flush();
        }
    }
}
