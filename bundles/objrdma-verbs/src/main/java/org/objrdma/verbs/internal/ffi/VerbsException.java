package org.objrdma.verbs.internal.ffi;

/** A verb failed; {@link #errno()} is what the library or driver reported (0 if it gave none). */
public final class VerbsException extends Exception {
    private static final long serialVersionUID = 1L;

    private final String verb;
    private final int errno;

    public VerbsException(String verb, int errno, String detail) {
        super(verb + " failed: " + Errno.describe(errno) + (detail == null || detail.isEmpty() ? "" : " — " + detail));
        this.verb = verb;
        this.errno = errno;
    }

    /** The C function that failed, e.g. {@code ibv_reg_mr}. */
    public String verb() {
        return verb;
    }

    public int errno() {
        return errno;
    }
}
