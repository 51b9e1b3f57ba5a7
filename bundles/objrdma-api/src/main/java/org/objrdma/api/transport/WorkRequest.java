package org.objrdma.api.transport;

import java.util.List;
import java.util.Objects;

/**
 * One operation to post on a {@link Channel}: an {@code ibv_send_wr} or {@code ibv_recv_wr} as a value.
 *
 * <p>Build it with the factories; they check the shape (one-sided operations name a remote address
 * and rkey, RECV names none). Whether the peer accepts the address and key is decided by the peer
 * and reported in the {@link Completion}.
 *
 * @param wrId          caller's id, echoed in the completion
 * @param opcode        what to do
 * @param sgList        local memory, at least one entry except for zero-length SEND/RECV
 * @param remoteAddress peer address for one-sided operations, else 0
 * @param rkey          peer key for one-sided operations, else 0
 * @param immediate     immediate value for {@code *_WITH_IMM}, else 0; carried as given (network order on the wire)
 * @param signaled      whether success produces a completion; errors always do
 */
public record WorkRequest(long wrId, Opcode opcode, List<ScatterGatherEntry> sgList,
                          long remoteAddress, int rkey, int immediate, boolean signaled) {

    public WorkRequest {
        Objects.requireNonNull(opcode, "opcode");
        sgList = List.copyOf(Objects.requireNonNull(sgList, "sgList"));
        if (!opcode.isOneSided() && (remoteAddress != 0 || rkey != 0)) {
            throw new IllegalArgumentException(opcode + " takes no remote address or rkey");
        }
        if (!opcode.hasImmediate() && immediate != 0) {
            throw new IllegalArgumentException(opcode + " carries no immediate value");
        }
        if (opcode == Opcode.RECV && !signaled) {
            throw new IllegalArgumentException("a RECV always completes; it cannot be unsignaled");
        }
    }

    /** Total bytes described by the scatter-gather list. */
    public long byteLength() {
        long total = 0;
        for (ScatterGatherEntry e : sgList) {
            total += e.length();
        }
        return total;
    }

    /** RDMA WRITE of {@code local} to {@code remote}, signaled. */
    public static WorkRequest write(long wrId, ScatterGatherEntry local, long remoteAddress, int rkey) {
        return new WorkRequest(wrId, Opcode.WRITE, List.of(local), remoteAddress, rkey, 0, true);
    }

    /** RDMA WRITE with immediate, signaled; the peer's next RECV completes with {@code immediate}. */
    public static WorkRequest writeWithImm(long wrId, ScatterGatherEntry local, long remoteAddress, int rkey,
                                           int immediate) {
        return new WorkRequest(wrId, Opcode.WRITE_WITH_IMM, List.of(local), remoteAddress, rkey, immediate, true);
    }

    /** RDMA READ from {@code remote} into {@code local}, signaled. */
    public static WorkRequest read(long wrId, ScatterGatherEntry local, long remoteAddress, int rkey) {
        return new WorkRequest(wrId, Opcode.READ, List.of(local), remoteAddress, rkey, 0, true);
    }

    /** SEND of {@code local}, signaled. */
    public static WorkRequest send(long wrId, ScatterGatherEntry local) {
        return new WorkRequest(wrId, Opcode.SEND, List.of(local), 0, 0, 0, true);
    }

    /** RECV into {@code local}. */
    public static WorkRequest recv(long wrId, ScatterGatherEntry local) {
        return new WorkRequest(wrId, Opcode.RECV, List.of(local), 0, 0, 0, true);
    }

    /** RECV with no buffer: enough to take the completion of a zero-byte SEND or of a WRITE_WITH_IMM. */
    public static WorkRequest recv(long wrId) {
        return new WorkRequest(wrId, Opcode.RECV, List.of(), 0, 0, 0, true);
    }

    /** The same request with a remote region instead of address and key. */
    public static WorkRequest write(long wrId, ScatterGatherEntry local, RemoteRegion remote) {
        return write(wrId, local, remote.address(), remote.rkey());
    }

    /** The same request with a remote region instead of address and key. */
    public static WorkRequest read(long wrId, ScatterGatherEntry local, RemoteRegion remote) {
        return read(wrId, local, remote.address(), remote.rkey());
    }

    /** This request, unsignaled: success produces no completion (errors still do). */
    public WorkRequest unsignaled() {
        return new WorkRequest(wrId, opcode, sgList, remoteAddress, rkey, immediate, false);
    }
}
