package org.objrdma.karaf.jdk25;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.lang.instrument.Instrumentation;

/**
 * {@code Premain-Class} of the agent.
 *
 * <p>This one class is compiled for an old release (see {@code agent.entry.release} in the POM) so that the
 * JVM can load it on every JDK Karaf 4.4 runs on. A {@code Premain-Class} the JVM cannot load (for example a
 * class file of version 69 on JDK 21) aborts the VM start, so the real work lives in {@code AgentInstaller}
 * (compiled for 25) and is only loaded, reflectively, on JDK 24 and newer. On older JDKs the agent does
 * nothing: they still honour {@code Subject.getSubject(acc)} and {@code doPrivileged(action, acc)}.
 *
 * <p>The agent must never prevent the VM from starting: every failure is reported as one line and swallowed.
 */
public final class Jdk25Agent {

    /** First JDK feature release on which {@code Subject.getSubject(AccessControlContext)} always throws. */
    static final int FIRST_BROKEN_FEATURE = 24;

    /** Environment variable that switches the agent off (also honoured by {@code bin/setenv}). */
    static final String DISABLE_ENV = "KARAF_NO_JDK25_AGENT";

    private Jdk25Agent() {
    }

    public static void premain(String args, Instrumentation inst) {
        boolean verbose = args != null && (("," + args.replace(" ", "") + ",").contains(",verbose,"));
        try {
            int feature = Runtime.version().feature();
            if (feature < FIRST_BROKEN_FEATURE) {
                if (verbose) {
                    log("inactive: JDK " + feature + " still supports Subject.getSubject(AccessControlContext)");
                }
                return;
            }
            String disabled = System.getenv(DISABLE_ENV);
            if (disabled != null && !disabled.isEmpty()) {
                if (verbose) {
                    log("inactive: " + DISABLE_ENV + " is set");
                }
                return;
            }
            Class<?> installer = Class.forName("org.objrdma.karaf.jdk25.AgentInstaller", true,
                    Jdk25Agent.class.getClassLoader());
            installer.getMethod("install", String.class, Instrumentation.class).invoke(null, args, inst);
        } catch (Throwable t) {
            Throwable cause = t instanceof java.lang.reflect.InvocationTargetException && t.getCause() != null
                    ? t.getCause() : t;
            log("not installed, Karaf shell/JMX/eventadmin may fail on this JDK: " + cause);
        }
    }

    private static void log(String message) {
        // FileDescriptor.err: the process stderr, not a System.err that Karaf may have redirected.
        @SuppressWarnings("resource")
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true);
        err.println("[objrdma-jdk25-agent] " + message);
    }
}
