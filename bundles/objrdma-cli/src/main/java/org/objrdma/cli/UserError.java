package org.objrdma.cli;

/** A mistake the user can fix (bad argument, missing credential, missing file): a message and an exit code, no trace. */
final class UserError extends Exception {
    private static final long serialVersionUID = 1L;
    private final int exitCode;

    UserError(int exitCode, String message) {
        super(message);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
