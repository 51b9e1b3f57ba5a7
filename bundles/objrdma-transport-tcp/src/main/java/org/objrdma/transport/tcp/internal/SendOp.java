package org.objrdma.transport.tcp.internal;

import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/**
 * A send-queue request from post to completion. Fields other than the final ones are guarded by the
 * channel's lock, except the READ cursor, which only the connection's reader thread uses.
 */
final class SendOp {
    final long seq;
    final WorkRequest request;
    final CompletionSink sink;
    final long length;
    /** Where READ response bytes land; null for other opcodes. Reader thread only. */
    final MemoryCursor readTarget;

    /** The connection the request went out on; set before it is put in flight, null if it never was. */
    TcpConnection via;
    boolean done;
    WcStatus status;
    int vendorError;

    SendOp(long seq, WorkRequest request, CompletionSink sink) {
        this.seq = seq;
        this.request = request;
        this.sink = sink;
        this.length = request.byteLength();
        this.readTarget = request.opcode() == Opcode.READ ? MemoryCursor.over(request.sgList()) : null;
    }

    boolean carriesPayload() {
        return switch (request.opcode()) {
            case WRITE, WRITE_WITH_IMM, SEND, SEND_WITH_IMM -> true;
            default -> false;
        };
    }

    /** The completion to deliver, or null for an unsignaled success. */
    Completion completion() {
        WcOpcode opcode = WcOpcode.forRequest(request.opcode());
        if (status.isSuccess()) {
            return request.signaled() ? Completion.success(request.wrId(), opcode, length) : null;
        }
        return new Completion(request.wrId(), status, opcode, 0, false, 0, vendorError);
    }
}
