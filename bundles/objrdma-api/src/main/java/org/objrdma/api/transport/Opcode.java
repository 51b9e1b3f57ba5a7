package org.objrdma.api.transport;

/** What a work request does, named after {@code ibv_wr_opcode}; {@link #verbsOpcode()} is the verbs value. */
public enum Opcode {
    /** One-sided write of local memory into the peer's region. */
    WRITE(0, true),
    /** As {@link #WRITE}, then consumes one RECV at the peer that completes with the immediate value. */
    WRITE_WITH_IMM(1, true),
    /** Two-sided send into a RECV the peer posted. */
    SEND(2, false),
    /** As {@link #SEND}, carrying an immediate value. */
    SEND_WITH_IMM(3, false),
    /** One-sided read of the peer's region into local memory. */
    READ(4, true),
    /** Posts a receive buffer for a SEND or the completion of a WRITE_WITH_IMM. Goes to the receive queue. */
    RECV(-1, false);

    private final int verbsOpcode;
    private final boolean oneSided;

    Opcode(int verbsOpcode, boolean oneSided) {
        this.verbsOpcode = verbsOpcode;
        this.oneSided = oneSided;
    }

    /** The {@code IBV_WR_*} value, or -1 for {@link #RECV}, which is posted with {@code ibv_post_recv}. */
    public int verbsOpcode() {
        return verbsOpcode;
    }

    /** True for operations that address the peer's memory and need a remote address and rkey. */
    public boolean isOneSided() {
        return oneSided;
    }

    /** True for operations that carry an immediate value. */
    public boolean hasImmediate() {
        return this == WRITE_WITH_IMM || this == SEND_WITH_IMM;
    }
}
