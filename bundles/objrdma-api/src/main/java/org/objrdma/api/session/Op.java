package org.objrdma.api.session;

/** Direction of a session, as seen by the client. */
public enum Op {
    /** Server writes object bytes into client memory. Wire value 0. */
    GET(0),
    /** Client writes object bytes into server staging. Wire value 1. */
    PUT(1);

    private final int code;

    Op(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }
}
