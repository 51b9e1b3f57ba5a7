package org.objrdma.karaf.jdk25;

import java.lang.instrument.Instrumentation;
import java.util.Locale;

/**
 * Installs the {@link SubjectCallRewriter} (JDK 24+ only; called reflectively by {@code Jdk25Agent}).
 *
 * <p>Agent arguments, comma separated: {@code verbose} lists each rewritten class on the process stderr and
 * prints a summary at shutdown. Unknown arguments are reported and ignored.
 */
public final class AgentInstaller {

    private AgentInstaller() {
    }

    public static void install(String args, Instrumentation inst) {
        boolean verbose = false;
        if (args != null) {
            for (String arg : args.split(",")) {
                String a = arg.trim().toLowerCase(Locale.ROOT);
                if (a.isEmpty()) {
                    continue;
                }
                if (a.equals("verbose")) {
                    verbose = true;
                } else {
                    AgentLog.line("ignoring unknown agent argument '" + arg.trim() + "'");
                }
            }
        }
        SubjectCallRewriter rewriter = new SubjectCallRewriter(verbose);
        // Load and exercise the ClassFile API now, on the main thread, rather than in the middle of the first
        // bundle class definition that needs it.
        rewriter.warmUp();
        inst.addTransformer(rewriter, false);
        if (verbose) {
            AgentLog.line("active on JDK " + Runtime.version() + ", redirecting to " + SubjectCallRewriter.SHIM_CLASS);
            Thread hook = new Thread(() -> AgentLog.line(rewriter.summary()), "objrdma-jdk25-agent-summary");
            Runtime.getRuntime().addShutdownHook(hook);
        }
    }
}
