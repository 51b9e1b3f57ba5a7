package org.objrdma.karaf.jdk25;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;

/**
 * Output of the agent: the process stderr ({@link FileDescriptor#err}), not {@code System.err}, which Karaf
 * replaces with a per-session {@code ThreadPrintStream} once the shell starts.
 */
final class AgentLog {

    static final String PREFIX = "[objrdma-jdk25-agent] ";

    private static final PrintStream ERR = new PrintStream(new FileOutputStream(FileDescriptor.err), true,
            Charset.defaultCharset());

    private AgentLog() {
    }

    static void line(String message) {
        ERR.println(PREFIX + message);
    }
}
