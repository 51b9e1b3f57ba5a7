package org.objrdma.verbs;

/** State of a device port, named after {@code enum ibv_port_state}. */
public enum PortState {
    NOP(0), DOWN(1), INIT(2), ARMED(3), ACTIVE(4), ACTIVE_DEFER(5);

    private final int code;

    PortState(int code) {
        this.code = code;
    }

    /** The {@code IBV_PORT_*} value. */
    public int code() {
        return code;
    }

    /** The state with verbs value {@code code}; values this enum does not know map to {@link #NOP}. */
    public static PortState fromCode(int code) {
        for (PortState s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return NOP;
    }
}
