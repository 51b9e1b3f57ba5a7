package org.objrdma.cuobj;

/**
 * {@code cuObjDelayMode_t}: how synchronous calls poll for their completion. Accepted, validated and reported;
 * on the TCP transport the completion wakes the waiting caller directly, so no mode changes what happens.
 */
public enum CuObjDelayMode {
    CUOBJ_DELAY_NONE(0),
    /** The default. */
    CUOBJ_DELAY_BATCH(1),
    CUOBJ_DELAY_ENTRY(2),
    CUOBJ_DELAY_ADAPTIVE(3),
    /** Not a mode: a server with it does not start. */
    CUOBJ_DELAY_INVALID(4);

    private final int code;

    CuObjDelayMode(int code) {
        this.code = code;
    }

    /** The C value. */
    public int code() {
        return code;
    }

    /** The mode with C value {@code code}, or {@link #CUOBJ_DELAY_INVALID}. */
    public static CuObjDelayMode fromCode(int code) {
        for (CuObjDelayMode m : values()) {
            if (m.code == code) {
                return m;
            }
        }
        return CUOBJ_DELAY_INVALID;
    }
}
