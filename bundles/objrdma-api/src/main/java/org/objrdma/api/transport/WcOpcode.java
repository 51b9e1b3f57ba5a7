package org.objrdma.api.transport;

/** What a completion reports it finished, named after {@code enum ibv_wc_opcode}. */
public enum WcOpcode {
    SEND(0),
    RDMA_WRITE(1),
    RDMA_READ(2),
    /** A RECV consumed by a SEND or SEND_WITH_IMM. */
    RECV(128),
    /** A RECV consumed by the peer's WRITE_WITH_IMM; the completion carries the immediate. */
    RECV_RDMA_WITH_IMM(129);

    private final int code;

    WcOpcode(int code) {
        this.code = code;
    }

    /** The {@code IBV_WC_*} value. */
    public int code() {
        return code;
    }

    /** The opcode with verbs value {@code code}, or null if objrdma does not use it. */
    public static WcOpcode fromCode(int code) {
        for (WcOpcode o : values()) {
            if (o.code == code) {
                return o;
            }
        }
        return null;
    }

    /** The completion opcode a send-queue request of {@code opcode} reports. */
    public static WcOpcode forRequest(Opcode opcode) {
        return switch (opcode) {
            case WRITE, WRITE_WITH_IMM -> RDMA_WRITE;
            case READ -> RDMA_READ;
            case SEND, SEND_WITH_IMM -> SEND;
            case RECV -> RECV;
        };
    }
}
