package org.objrdma.cli;

/** The exit codes of {@code bin/objrdma} (README "Exit codes"). */
final class ExitCodes {
    static final int OK = 0;
    /** The gateway refused the request or the transfer failed. */
    static final int FAILED = 1;
    /** Bad command line (picocli's own usage code). */
    static final int USAGE = 2;
    /** No endpoint or no credential, an unknown profile, no JDK >= 25 (launcher). */
    static final int CONFIG = 3;
    /** A local file could not be read or written. */
    static final int LOCAL_IO = 4;

    private ExitCodes() {
    }
}
