package org.objrdma.cuobj.internal;

import java.io.Flushable;
import java.io.IOException;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where one server's telemetry lines go: the stream given to {@code setupTelemetry} (lines
 * {@code <instant> cuobj <LEVEL> <text>}), or — by default and after {@code shutdownTelemetry} — SLF4J logger
 * {@code org.objrdma.cuobj.telemetry}. The flags are fixed when the server is created, as in C; the stream is
 * dropped by {@link Setup#shutDown()} even for servers still alive, so a caller may close it afterwards.
 */
public final class TelemetryLog {
    /** The SLF4J logger of the default sink. */
    public static final Logger DEFAULT = LoggerFactory.getLogger("org.objrdma.cuobj.telemetry");

    /** One {@code setupTelemetry} call: its stream until {@link #shutDown()}. */
    public static final class Setup {
        private final Appendable stream;
        private volatile boolean shutDown;

        public Setup(Appendable stream) {
            this.stream = stream;
        }

        /** Detaches the stream from every server that uses it. */
        public void shutDown() {
            shutDown = true;
        }
    }

    private final Setup setup;
    private final int pathFlags;
    private final int opFlags;

    /**
     * @param setup     the stream setup, null for SLF4J
     * @param pathFlags {@code CUOBJ_LOG_PATH_*} bits
     * @param opFlags   {@code CUOBJ_LOG_OP_*} bits
     */
    public TelemetryLog(Setup setup, int pathFlags, int opFlags) {
        this.setup = setup;
        this.pathFlags = pathFlags;
        this.opFlags = opFlags;
    }

    public int pathFlags() {
        return pathFlags;
    }

    public int opFlags() {
        return opFlags;
    }

    /** True if lines of path flag {@code flag} are written. */
    public boolean enabled(int flag) {
        return (pathFlags & flag) != 0;
    }

    /** True if operation lines of {@code flag} are written. */
    public boolean opEnabled(int flag) {
        return (opFlags & flag) != 0;
    }

    /** Writes {@code text} at {@code level} (INFO, DEBUG, ERROR, OP); callers check {@link #enabled} first. */
    public void line(String level, String text) {
        Setup s = setup;
        if (s == null || s.shutDown) {
            switch (level) {
                case "ERROR" -> DEFAULT.error(text);
                case "DEBUG" -> DEFAULT.debug(text);
                default -> DEFAULT.info(text);
            }
            return;
        }
        String line = Instant.now() + " cuobj " + level + " " + text + System.lineSeparator();
        synchronized (s) {
            try {
                s.stream.append(line);
                if (s.stream instanceof Flushable f) {
                    f.flush();
                }
            } catch (IOException e) {
                DEFAULT.warn("telemetry stream failed ({}); line was: {}", e.getMessage(), text);
            }
        }
    }
}
