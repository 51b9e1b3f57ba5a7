package org.objrdma.api.transport;

import java.util.Objects;

/**
 * The end of one work request: an {@code ibv_wc} as a value.
 *
 * @param wrId         the request's id
 * @param status       how it ended
 * @param opcode       what ended; for flushed or failed requests the opcode of the request as posted
 * @param byteLength   bytes moved (for receives: bytes placed); 0 on failure
 * @param hasImmediate true if {@code immediate} carries a value
 * @param immediate    the immediate value of a WRITE_WITH_IMM or SEND_WITH_IMM, as the sender gave it
 * @param vendorError  transport-specific detail for logs, 0 if none
 */
public record Completion(long wrId, WcStatus status, WcOpcode opcode, long byteLength,
                         boolean hasImmediate, int immediate, int vendorError) {
    public Completion {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(opcode, "opcode");
    }

    /** A successful completion without immediate. */
    public static Completion success(long wrId, WcOpcode opcode, long byteLength) {
        return new Completion(wrId, WcStatus.SUCCESS, opcode, byteLength, false, 0, 0);
    }

    /** A failed completion. */
    public static Completion failure(long wrId, WcStatus status, WcOpcode opcode) {
        if (status.isSuccess()) {
            throw new IllegalArgumentException("failure needs an error status");
        }
        return new Completion(wrId, status, opcode, 0, false, 0, 0);
    }

    public boolean isSuccess() {
        return status.isSuccess();
    }
}
