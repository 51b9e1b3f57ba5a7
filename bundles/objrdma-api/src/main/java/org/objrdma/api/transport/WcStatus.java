package org.objrdma.api.transport;

/**
 * How a work request ended, named after {@code enum ibv_wc_status}; {@link #code()} is the verbs value.
 * Every transport reports these names, so consumers never branch on the transport.
 */
public enum WcStatus {
    SUCCESS(0, "success"),
    LOC_LEN_ERR(1, "local length error: a receive buffer was too short or a gather list too long"),
    LOC_QP_OP_ERR(2, "local queue pair operation error"),
    LOC_EEC_OP_ERR(3, "local EE context operation error"),
    LOC_PROT_ERR(4, "local protection error: a local buffer is not registered for this access"),
    WR_FLUSH_ERR(5, "flushed: the channel was in error or closing when this request ran"),
    MW_BIND_ERR(6, "memory window bind error"),
    BAD_RESP_ERR(7, "bad response from the peer"),
    LOC_ACCESS_ERR(8, "local access error"),
    REM_INV_REQ_ERR(9, "remote invalid request: the peer refused the operation or its receive was too short"),
    REM_ACCESS_ERR(10, "remote access error: bad rkey, access flags or bounds at the peer"),
    REM_OP_ERR(11, "remote operation error: the peer failed to complete the operation"),
    RETRY_EXC_ERR(12, "transport retry counter exceeded: the peer did not answer"),
    RNR_RETRY_EXC_ERR(13, "receiver-not-ready retry counter exceeded: the peer posted no receive"),
    LOC_RDD_VIOL_ERR(14, "local RDD violation"),
    REM_INV_RD_REQ_ERR(15, "remote invalid RD request"),
    REM_ABORT_ERR(16, "remote aborted"),
    INV_EECN_ERR(17, "invalid EE context number"),
    INV_EEC_STATE_ERR(18, "invalid EE context state"),
    FATAL_ERR(19, "fatal error"),
    RESP_TIMEOUT_ERR(20, "response timeout: no completion within the deadline"),
    GENERAL_ERR(21, "general error"),
    TM_ERR(22, "tag matching error"),
    TM_RNDV_INCOMPLETE(23, "tag matching rendezvous incomplete");

    private static final WcStatus[] BY_CODE = values();

    private final int code;
    private final String description;

    WcStatus(int code, String description) {
        this.code = code;
        this.description = description;
    }

    /** The {@code IBV_WC_*} value. */
    public int code() {
        return code;
    }

    /** One line for logs and error messages. */
    public String description() {
        return description;
    }

    public boolean isSuccess() {
        return this == SUCCESS;
    }

    /** The status with verbs value {@code code}; unknown values map to {@link #GENERAL_ERR}. */
    public static WcStatus fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : GENERAL_ERR;
    }
}
