package org.objrdma.transport.tcp.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.transport.common.TransportChecks;

/**
 * How work gets onto a {@link TcpChannel}: {@code post}, {@code submit} and {@code poll}. The checks (the
 * transports' shared ones from {@link TransportChecks}, then state and queue depths), queueing under the
 * channel's lock, a request that names closed or read-only local memory failing with LOC_PROT_ERR and the
 * channel in ERROR, a small request sent inline from the posting thread, and a batch's deadline. Its own class
 * because posting is one concept with many rules; the states it reads and the transition to ERROR are the
 * channel's (its lock, phase and connection, used here as the channel's own methods would).
 */
final class ChannelPoster {
    private final TcpChannel channel;
    /** Completions of {@code post}ed requests, until {@link #poll}ed. */
    private final ConcurrentLinkedQueue<Completion> completions = new ConcurrentLinkedQueue<>();
    private final CompletionSink pollQueue = completions::add;

    ChannelPoster(TcpChannel channel) {
        this.channel = channel;
    }

    void post(WorkRequest request) throws TransportException {
        checkShape(request);
        List<Runnable> deliveries = new ArrayList<>(1);
        TcpConnection toAbort;
        channel.lock.lock();
        try {
            checkPostable(List.of(request), request.opcode() == Opcode.RECV ? 0 : 1,
                    request.opcode() == Opcode.RECV ? 1 : 0);
            toAbort = postLocked(request, pollQueue, deliveries);
        } finally {
            channel.lock.unlock();
        }
        channel.finishPost(deliveries, toAbort);
    }

    int poll(Completion[] out) {
        int n = 0;
        while (n < out.length) {
            Completion c = completions.poll();
            if (c == null) {
                break;
            }
            out[n++] = c;
        }
        return n;
    }

    CompletableFuture<BatchResult> submit(List<WorkRequest> requests, Duration timeout) {
        try {
            TransportChecks.checkSubmit(requests, timeout);
            List<WorkRequest> signaled = new ArrayList<>(requests.size());
            int sends = 0;
            for (WorkRequest r : requests) {
                checkShape(r);
                if (r.opcode() != Opcode.RECV) {
                    sends++;
                }
                // every request of a batch is signaled: its completion fills its slot
                signaled.add(r.signaled() ? r : new WorkRequest(r.wrId(), r.opcode(), r.sgList(), r.remoteAddress(),
                        r.rkey(), r.immediate(), true));
            }
            if (signaled.isEmpty()) {
                return CompletableFuture.completedFuture(new BatchResult(List.of(), false));
            }
            Batch batch = new Batch(signaled);
            List<Runnable> deliveries = new ArrayList<>();
            TcpConnection toAbort = null;
            long postedIn;
            channel.lock.lock();
            try {
                checkPostable(signaled, sends, signaled.size() - sends);
                postedIn = channel.epoch;
                channel.openBatches.add(batch);
                batch.future().whenComplete((r, e) -> channel.openBatches.remove(batch));
                for (int i = 0; i < signaled.size(); i++) {
                    TcpConnection a = postLocked(signaled.get(i), batch.slot(i), deliveries);
                    toAbort = toAbort != null ? toAbort : a;
                }
            } finally {
                channel.lock.unlock();
            }
            batch.deadline(channel.transport().schedule(() -> batch.expire(() -> channel.enterError(postedIn,
                    EndCause.LOCAL_ERROR,
                    "batch missed its deadline of " + timeout)), timeout));
            channel.finishPost(deliveries, toAbort);
            return batch.future();
        } catch (TransportException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Refusals that need no state (the transports' shared rules): SGE count, regions of another transport. */
    private void checkShape(WorkRequest request) throws TransportException {
        TransportChecks.checkRequest(request, channel.options().maxSge(), channel::isOurs, channel.transport().name());
    }

    /**
     * Refusals that depend on state: closed, not connected (the transports' shared rules), queue full. Nothing
     * is queued if one applies.
     */
    private void checkPostable(List<WorkRequest> requests, int sends, int recvs) throws TransportException {
        ChannelState s = channel.state();
        for (WorkRequest r : requests) {
            TransportChecks.checkPostable(s, channel.id(), r.opcode());
        }
        int queued = channel.queues.sendQueueSize();
        if (queued + sends > channel.options().sendQueueDepth()) {
            throw new TransportException(TransportError.RESOURCE_EXHAUSTED, "send queue of channel " + channel.id()
                    + " holds " + queued + " of " + channel.options().sendQueueDepth() + "; " + sends + " more do not fit");
        }
        int posted = channel.queues.postedReceives();
        if (posted + recvs > channel.options().recvQueueDepth()) {
            throw new TransportException(TransportError.RESOURCE_EXHAUSTED, "receive queue of channel " + channel.id()
                    + " holds " + posted + " of " + channel.options().recvQueueDepth() + "; " + recvs + " more do not fit");
        }
    }

    /**
     * Queues one request (checks passed). Returns the connection to cut if the request failed a local
     * protection check (the caller cuts it outside the lock).
     */
    private TcpConnection postLocked(WorkRequest request, CompletionSink sink, List<Runnable> deliveries) {
        boolean localOk = localAccessOk(request);
        if (request.opcode() == Opcode.RECV) {
            RecvOp recv = new RecvOp(request, sink);
            if (channel.phase == TcpChannel.Phase.ERROR) {
                deliveries.add(channel.queues.flushRecv(recv));
                return null;
            }
            if (!localOk) {
                channel.phase = TcpChannel.Phase.ERROR;
                deliveries.add(channel.queues.deliverRecv(recv, new Completion(request.wrId(), WcStatus.LOC_PROT_ERR,
                        WcOpcode.RECV, 0, false, 0, EndCause.LOCAL_ERROR.vendorCode())));
                return channel.errorLocked(EndCause.LOCAL_ERROR, deliveries);
            }
            channel.queues.enqueueRecv(recv);
            channel.changed.signalAll();
            return null;
        }
        SendOp op = channel.queues.enqueueSend(request, sink);
        if (channel.phase == TcpChannel.Phase.ERROR) {
            op.done = true;
            op.status = WcStatus.WR_FLUSH_ERR;
            channel.queues.collectDeliverable(deliveries);
            return null;
        }
        if (!localOk) {
            channel.phase = TcpChannel.Phase.ERROR;
            op.done = true;
            op.status = WcStatus.LOC_PROT_ERR;
            op.vendorError = EndCause.LOCAL_ERROR.vendorCode();
            TcpConnection c = channel.errorLocked(EndCause.LOCAL_ERROR, deliveries);
            channel.queues.collectDeliverable(deliveries);
            return c;
        }
        TcpConnection via = channel.connection;
        op.via = via;
        channel.queues.putInFlight(op);
        if (via.send(op)) {
            // claimed the idle socket: this thread sends it first thing after the lock is released
            deliveries.add(0, () -> via.sendClaimed(op));
        }
        return null;
    }

    /** Local memory the request uses is still registered, and writable where the request writes it. */
    private static boolean localAccessOk(WorkRequest request) {
        boolean writes = request.opcode() == Opcode.READ || request.opcode() == Opcode.RECV;
        for (ScatterGatherEntry e : request.sgList()) {
            TcpRegion r = (TcpRegion) e.region();
            if (!r.isOpen() || (writes && !r.allows(Access.LOCAL_WRITE))) {
                return false;
            }
        }
        return true;
    }
}
