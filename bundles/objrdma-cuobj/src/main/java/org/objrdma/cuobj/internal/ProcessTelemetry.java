package org.objrdma.cuobj.internal;

/**
 * The telemetry setup of cuObject's static API ({@code setupTelemetry}, {@code shutdownTelemetry},
 * {@code setTelemFlags}; spec cuobj.md §4.8): process-wide because the C API is static, read once by each server
 * created afterwards. It is the only static state of the facade; transport and agent key are the component's
 * ({@link ContainerDefaults}).
 */
public final class ProcessTelemetry {
    private static final Object LOCK = new Object();
    private static TelemetryLog.Setup setup;                                      // guarded by LOCK; null = SLF4J
    private static int pathFlags = org.objrdma.cuobj.CuObj.CUOBJ_LOG_PATH_ERROR;   // guarded by LOCK
    private static int opFlags;                                                   // guarded by LOCK

    private ProcessTelemetry() {
    }

    /** Sends the lines of servers created from now on to {@code os}; null: back to SLF4J. */
    public static void setup(Appendable os) {
        synchronized (LOCK) {
            if (setup != null) {
                setup.shutDown();
            }
            setup = os == null ? null : new TelemetryLog.Setup(os);
        }
    }

    /** Detaches the stream from every server and goes back to SLF4J. */
    public static void shutdown() {
        setup(null);
    }

    /** Path flags (3 bits) of servers created from now on; op flags unchanged when {@code ops} is negative. */
    public static void flags(int path, int ops) {
        synchronized (LOCK) {
            pathFlags = path & 0x7;
            if (ops >= 0) {
                opFlags = ops & 0x3;
            }
        }
    }

    /** A server's log: the process-wide setup with {@code override} flags ({path, op}) or the process-wide ones. */
    public static TelemetryLog newLog(int[] override) {
        synchronized (LOCK) {
            return override == null ? new TelemetryLog(setup, pathFlags, opFlags)
                    : new TelemetryLog(setup, override[0], override[1]);
        }
    }
}
