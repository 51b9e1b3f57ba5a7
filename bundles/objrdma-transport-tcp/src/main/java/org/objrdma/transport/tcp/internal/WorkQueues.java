package org.objrdma.transport.tcp.internal;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/**
 * One channel's send and receive queues and their completions in order, as a verbs queue pair keeps them: a
 * request that finished early waits for the older ones ({@link #collectDeliverable}); a flush gives the oldest
 * unfinished request the end's status and the rest {@code WR_FLUSH_ERR}. Everything here is guarded by the
 * channel's lock except {@link #inFlight}, which the reader thread reads without it. Completions are returned
 * as deliveries for the caller to run after it releases the lock. Its own class because ordering and flushing
 * are one rule, apart from the channel's states.
 */
final class WorkQueues {
    private final TcpTransport transport;
    private long nextSeq = 1;
    private final ArrayDeque<SendOp> sendQueue = new ArrayDeque<>();
    private final ArrayDeque<RecvOp> recvQueue = new ArrayDeque<>();
    /** The receive a peer's SEND or WRITE_WITH_IMM is filling right now, taken off {@link #recvQueue}. */
    private RecvOp activeRecv;
    /** Requests on the wire by sequence number, for the reader thread. */
    private final Map<Long, SendOp> inFlight = new ConcurrentHashMap<>();
    /** Bytes this side's completed requests moved, for the channel's info. */
    private final LongAdder bytesWritten = new LongAdder();
    private final LongAdder bytesRead = new LongAdder();

    WorkQueues(TcpTransport transport) {
        this.transport = transport;
    }

    int sendQueueSize() {
        return sendQueue.size();
    }

    /** Receives posted and not completed, the one being filled included. */
    int postedReceives() {
        return recvQueue.size() + (activeRecv == null ? 0 : 1);
    }

    long bytesWritten() {
        return bytesWritten.sum();
    }

    long bytesRead() {
        return bytesRead.sum();
    }

    /** A new request at the tail of the send queue. */
    SendOp enqueueSend(WorkRequest request, CompletionSink sink) {
        SendOp op = new SendOp(nextSeq++, request, sink);
        sendQueue.add(op);
        return op;
    }

    void enqueueRecv(RecvOp recv) {
        recvQueue.add(recv);
    }

    /** The request went out on {@code op.via}: the reader may now match its answers. */
    void putInFlight(SendOp op) {
        inFlight.put(op.seq, op);
    }

    /** The request {@code from} carries with {@code seq}, or null. Reader thread, without the lock. */
    SendOp inFlight(TcpConnection from, long seq) {
        SendOp op = inFlight.get(seq);
        return op != null && op.via == from ? op : null;
    }

    boolean hasReceive() {
        return !recvQueue.isEmpty();
    }

    /** Takes the oldest posted receive as the one being filled. */
    RecvOp takeReceive() {
        activeRecv = recvQueue.pollFirst();
        return activeRecv;
    }

    /** Ends the receive being filled, if it is {@code recv} (false: flushed meanwhile). */
    boolean endReceive(RecvOp recv) {
        if (activeRecv != recv) {
            return false;
        }
        activeRecv = null;
        return true;
    }

    /** Moves every finished request at the head of the send queue out, in order. */
    void collectDeliverable(List<Runnable> deliveries) {
        while (!sendQueue.isEmpty() && sendQueue.peekFirst().done) {
            SendOp op = sendQueue.pollFirst();
            inFlight.remove(op.seq);
            Completion c = op.completion();
            countCompletion(op);
            if (c != null) {
                deliveries.add(() -> op.sink.accept(c));
            }
        }
    }

    private void countCompletion(SendOp op) {
        var t = transport.telemetry();
        if (op.status.isSuccess()) {
            t.increment(Counter.TRANSPORT_OPS_COMPLETED);
            switch (op.request.opcode()) {
                case WRITE, WRITE_WITH_IMM -> {
                    t.add(Counter.TRANSPORT_BYTES_WRITTEN, op.length);
                    bytesWritten.add(op.length);
                }
                case READ -> {
                    t.add(Counter.TRANSPORT_BYTES_READ, op.length);
                    bytesRead.add(op.length);
                }
                default -> {
                    // SEND bytes have no counter of their own
                }
            }
        } else {
            t.increment(Counter.TRANSPORT_OPS_FAILED);
        }
    }

    /** Unfinished requests: the oldest gets the cause's status, the rest WR_FLUSH_ERR; receives flushed. */
    void flushAll(EndCause cause, List<Runnable> deliveries) {
        boolean head = true;
        for (SendOp op : sendQueue) {
            if (!op.done) {
                op.done = true;
                op.status = head ? cause.headStatus() : WcStatus.WR_FLUSH_ERR;
                op.vendorError = cause.vendorCode();
                head = false;
            }
        }
        collectDeliverable(deliveries);
        if (activeRecv != null) {
            deliveries.add(flushRecv(activeRecv));
            activeRecv = null;
        }
        while (!recvQueue.isEmpty()) {
            deliveries.add(flushRecv(recvQueue.pollFirst()));
        }
    }

    Runnable flushRecv(RecvOp recv) {
        return deliverRecv(recv, Completion.failure(recv.request.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV));
    }

    Runnable deliverRecv(RecvOp recv, Completion c) {
        transport.telemetry().increment(c.isSuccess() ? Counter.TRANSPORT_OPS_COMPLETED : Counter.TRANSPORT_OPS_FAILED);
        return () -> recv.sink.accept(c);
    }
}
