package org.objrdma.session.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.wire.DialPacing;

/**
 * The data phase of one READY, through the Transport SPI ({@code runDataPhase} of the C core).
 *
 * <ul>
 *   <li>GET: connect, then WRITE_WITH_IMM from staging into the client region with the cookie as the
 *       immediate. Receiver-not-ready at the peer is {@link ReadyOutcome#BUSY}; retries exceeded (the
 *       peer vanished, its connection closed) is {@link ReadyOutcome#WIRE_FAIL}.</li>
 *   <li>PUT: post a RECV on the staging region (before connecting, so the client's WRITE_WITH_IMM can
 *       never find the queue empty), connect, then wait for it. The completion must be a
 *       RECV_RDMA_WITH_IMM of the work request posted, carrying the cookie, for exactly the session's
 *       size; anything else is {@link ReadyOutcome#VERIFY_FAIL}.</li>
 * </ul>
 *
 * The wait is bounded by the exec timeout the transport enforces, plus {@link #GRACE_MS} in case the
 * transport itself stalls: a transport that never answers cannot hold a READY (and its slot) forever.
 */
final class DataPhase {
    /** Extra wait beyond the transport's own deadline before the session gives up on the future. */
    static final long GRACE_MS = 1_000;

    private DataPhase() {
    }

    /**
     * Runs the data phase. Never throws for transfer failures: they are outcomes.
     *
     * @param channel      the session's channel, in INIT
     * @param remote       the client's endpoint, completed with READY's queue pair number
     * @param op           GET or PUT
     * @param staging      the session's staging bytes as a scatter-gather entry
     * @param clientRegion GET: where the bytes go; PUT: unused
     * @param cookie       the immediate value both directions carry
     * @param wrId         id of the one work request posted
     * @param execTimeoutMs how long the transfer may take
     * @param pacing       how a failed dial of the client answers ({@link #connect})
     */
    static DataPhaseResult run(Channel channel, EndpointInfo remote, Op op, ScatterGatherEntry staging,
                               RemoteRegion clientRegion, int cookie, long wrId, long execTimeoutMs,
                               DialPacing pacing) {
        java.time.Duration timeout = java.time.Duration.ofMillis(execTimeoutMs);
        if (op == Op.PUT) {
            CompletableFuture<BatchResult> receive = channel.submit(List.of(WorkRequest.recv(wrId, staging)), timeout);
            DataPhaseResult refused = connect(channel, remote, pacing);
            if (refused != null) {
                return refused;
            }
            return classifyPut(await(receive, execTimeoutMs), wrId, cookie, staging.length());
        }
        DataPhaseResult refused = connect(channel, remote, pacing);
        if (refused != null) {
            return refused;
        }
        WorkRequest write = WorkRequest.writeWithImm(wrId, staging, clientRegion.address(), clientRegion.rkey(), cookie);
        return classifyGet(await(channel.submit(List.of(write), timeout), execTimeoutMs), wrId, staging.length());
    }

    /**
     * Connects {@code channel} to the client; null when connected, else WIRE_FAIL returned only once
     * {@link DialPacing#delay()} has passed since the dial began. The client's READY answer carries the outcome
     * alone, so with the pad it is the same for a closed port, a filtered one and one that does not speak the
     * protocol; the reason stays in the detail, which goes to the server's log only.
     */
    static DataPhaseResult connect(Channel channel, EndpointInfo remote, DialPacing pacing) {
        long started = System.nanoTime();
        try {
            channel.connect(remote);
            return null;
        } catch (TransportException e) {
            pacing.padFailure(started);
            return DataPhaseResult.of(ReadyOutcome.WIRE_FAIL, "connect failed: " + e.getMessage());
        }
    }

    /**
     * The data phase of a PUT whose channel was connected at PREPARE ({@link PutStaging}): the receive posted
     * then takes the client's WRITE_WITH_IMM (perhaps already did); nothing is posted or connected now.
     */
    static DataPhaseResult awaitArmedPut(CompletableFuture<BatchResult> armedReceive, long wrId, int cookie, long size,
                                         long execTimeoutMs) {
        return classifyPut(await(armedReceive, execTimeoutMs), wrId, cookie, size);
    }

    /** What waiting for one submitted batch gave. */
    sealed interface Awaited {
        /** The transport answered with its batch result (which may itself say it timed out). */
        record Answered(BatchResult batch) implements Awaited {
        }

        /** The future did not complete within the exec timeout plus {@link #GRACE_MS}: the transport is silent. */
        record Silent() implements Awaited {
        }

        /** The wait itself failed (interrupted, or the submit was refused): the outcome is already known. */
        record Failed(DataPhaseResult result) implements Awaited {
        }
    }

    /** Waits for the batch, at most the exec timeout plus {@link #GRACE_MS}. */
    static Awaited await(CompletableFuture<BatchResult> future, long execTimeoutMs) {
        try {
            return new Awaited.Answered(future.get(execTimeoutMs + GRACE_MS, TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            return new Awaited.Silent();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Awaited.Failed(DataPhaseResult.of(ReadyOutcome.WIRE_FAIL,
                    "interrupted while waiting for the completion"));
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            return new Awaited.Failed(DataPhaseResult.of(ReadyOutcome.WIRE_FAIL, "could not post: " + cause.getMessage()));
        }
    }

    static DataPhaseResult classifyGet(Awaited awaited, long wrId, long size) {
        Completion c = single(awaited);
        if (c == null) {
            return early(awaited);
        }
        if (c.isSuccess()) {
            if (c.wrId() != wrId || c.opcode() != WcOpcode.RDMA_WRITE) {
                return DataPhaseResult.of(ReadyOutcome.VERIFY_FAIL, "completion of another request: wr_id "
                        + c.wrId() + " opcode " + c.opcode() + ", posted wr_id " + wrId + " RDMA_WRITE");
            }
            return DataPhaseResult.ok(size);
        }
        return failed(c);
    }

    static DataPhaseResult classifyPut(Awaited awaited, long wrId, int cookie, long size) {
        Completion c = single(awaited);
        if (c == null) {
            return early(awaited);
        }
        if (!c.isSuccess()) {
            return failed(c);
        }
        if (c.wrId() != wrId) {
            return DataPhaseResult.of(ReadyOutcome.VERIFY_FAIL, "completion wr_id " + c.wrId() + ", posted " + wrId);
        }
        if (c.opcode() != WcOpcode.RECV_RDMA_WITH_IMM || !c.hasImmediate()) {
            return DataPhaseResult.of(ReadyOutcome.VERIFY_FAIL, "receive completed by " + c.opcode()
                    + (c.hasImmediate() ? "" : " without an immediate") + ", expected RECV_RDMA_WITH_IMM");
        }
        if (c.immediate() != cookie) {
            return DataPhaseResult.of(ReadyOutcome.VERIFY_FAIL, String.format(
                    "immediate 0x%08x is not the session cookie 0x%08x", c.immediate(), cookie));
        }
        if (c.byteLength() != size) {
            return DataPhaseResult.of(ReadyOutcome.VERIFY_FAIL, "client wrote " + c.byteLength()
                    + " bytes, the session is " + size);
        }
        return DataPhaseResult.ok(size);
    }

    /** The one completion of a batch that answered in time, or null. */
    private static Completion single(Awaited awaited) {
        if (awaited instanceof Awaited.Answered(BatchResult batch) && !batch.timedOut()
                && batch.completions().size() == 1) {
            return batch.completions().get(0);
        }
        return null;
    }

    /** The outcome of a wait that gave no single completion. */
    private static DataPhaseResult early(Awaited awaited) {
        return switch (awaited) {
            case Awaited.Silent silent ->
                    DataPhaseResult.of(ReadyOutcome.TIMEOUT, "no completion within the exec timeout (transport silent)");
            case Awaited.Failed(DataPhaseResult result) -> result;
            case Awaited.Answered(BatchResult batch) -> batch.timedOut()
                    ? DataPhaseResult.of(ReadyOutcome.TIMEOUT, "no completion within the exec timeout")
                    : DataPhaseResult.of(ReadyOutcome.VERIFY_FAIL, batch.completions().size()
                            + " completions for one request");
        };
    }

    private static DataPhaseResult failed(Completion c) {
        WcStatus s = c.status();
        String detail = s + " (" + s.description() + ")";
        return switch (s) {
            // only receiver-not-ready is Busy (the client may arm its receive and retry READY); retries
            // exceeded means the peer vanished or closed the connection: the session must end now, not
            // pin its staging until the prep deadline (the C core calls both Busy)
            case RNR_RETRY_EXC_ERR -> DataPhaseResult.of(ReadyOutcome.BUSY, detail);
            case RESP_TIMEOUT_ERR -> DataPhaseResult.of(ReadyOutcome.TIMEOUT, detail);
            default -> DataPhaseResult.of(ReadyOutcome.WIRE_FAIL, detail);
        };
    }
}
