package org.objrdma.verbs.internal.ffi;

/** {@code enum ibv_qp_state}. */
public enum QpState {
    RESET(IbvConstants.IBV_QPS_RESET),
    INIT(IbvConstants.IBV_QPS_INIT),
    RTR(IbvConstants.IBV_QPS_RTR),
    RTS(IbvConstants.IBV_QPS_RTS),
    SQD(IbvConstants.IBV_QPS_SQD),
    SQE(IbvConstants.IBV_QPS_SQE),
    ERR(IbvConstants.IBV_QPS_ERR),
    UNKNOWN(IbvConstants.IBV_QPS_UNKNOWN);

    private final int code;

    QpState(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The state with verbs value {@code code}; anything else is {@link #UNKNOWN}. */
    public static QpState fromCode(int code) {
        for (QpState s : values()) {
            if (s.code == code) {
                return s;
            }
        }
        return UNKNOWN;
    }
}
