package org.objrdma.verbs.internal.transport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.transport.common.TransportChecks;
import org.objrdma.verbs.internal.ffi.Errno;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posting on one channel: {@code post} (one request, its completion to {@code poll}), {@code submit} (a batch
 * posted as one receive chain and one send chain, tracked by the poller until every request completed or the
 * deadline passed) and the memory-window requests of grants. Checks the arguments (objrdma-transport-common's
 * {@link TransportChecks}, the rules and messages TCP uses too) and the queue pair's state, fills the
 * {@link SlotRing}s, has the {@link WorkRequestEncoder} write and post, and undoes the slots of whatever the
 * device refused. Everything here runs under the post lock ({@link QueuePairStates#lock}).
 */
final class WorkPoster {
    private static final Logger LOG = LoggerFactory.getLogger(WorkPoster.class);
    /** A longer submit timeout is cut to this: the deadline stays a valid nanoTime difference. */
    private static final Duration LONGEST_TIMEOUT = Duration.ofDays(365);

    private final VerbsChannel channel;
    private final VerbsTransport transport;
    private final QueuePairStates states;
    private final ReentrantLock postLock;
    private final WorkRequestEncoder encoder;
    private final SlotRing sendRing;
    private final SlotRing recvRing;
    private final CompletionRouter router;
    private final int maxSge;
    private final Set<PendingBatch> openBatches = ConcurrentHashMap.newKeySet();

    WorkPoster(VerbsChannel channel, VerbsTransport transport, QueuePairStates states, WorkRequestEncoder encoder,
               SlotRing sendRing, SlotRing recvRing, CompletionRouter router, int maxSge) {
        this.channel = channel;
        this.transport = transport;
        this.states = states;
        this.postLock = states.lock;
        this.encoder = encoder;
        this.sendRing = sendRing;
        this.recvRing = recvRing;
        this.router = router;
        this.maxSge = maxSge;
    }

    /** The batches submitted and not ended, now. */
    List<PendingBatch> openBatches() {
        return new ArrayList<>(openBatches);
    }

    /** A batch ended (finished, timed out or flushed): forget it. */
    void batchEnded(PendingBatch batch) {
        openBatches.remove(batch);
    }

    void post(WorkRequest request) throws TransportException {
        checkEntries(request);
        postLock.lock();
        try {
            TransportChecks.checkPostable(states.current(), channel.id(), request.opcode());
            // ERROR accepts work: the queue pair flushes it with WR_FLUSH_ERR, as the contract promises
            boolean recv = request.opcode() == Opcode.RECV;
            SlotRing ring = recv ? recvRing : sendRing;
            if (ring.free() < 1) {
                throw queueFull(recv ? "receive" : "send", ring);
            }
            long seq = ring.head;
            int slot = ring.index(seq);
            ring.set(slot, request, recv || request.signaled(), null, 0);
            if (recv) {
                encoder.writeRecv(0, seq, request, false);
            } else {
                encoder.writeSend(0, seq, request, request.signaled(), false);
            }
            ring.head = seq + 1;
            int rc = recv ? encoder.postRecvs() : encoder.postSends();
            if (rc != 0) {
                ring.head = seq;
                ring.clear(slot);
                throw postRefused(recv ? "ibv_post_recv" : "ibv_post_send", rc);
            }
        } finally {
            postLock.unlock();
        }
    }

    /**
     * Posts {@code work} signaled on this queue pair and waits up to {@code timeoutNanos} for its completion,
     * reading the completion queue itself if no one else is (the caller's own completions met on the way wait
     * for {@code poll}, in order). Returns the status, WR_FLUSH_ERR at once if the channel is in ERROR, or null
     * if nothing completed in time.
     *
     * @throws TransportException CLOSED, WRONG_STATE (not connected: a bind needs RTS), RESOURCE_EXHAUSTED
     *         (send queue full), or the post's refusal
     */
    WcStatus postWindowWork(WindowWork work, long timeoutNanos) throws TransportException {
        CompletableFuture<WcStatus> done = new CompletableFuture<>();
        postLock.lock();
        try {
            ChannelState s = states.current();
            if (s == ChannelState.CLOSED || states.qpClosed()) {
                throw new TransportException(TransportError.CLOSED, "channel " + channel.id() + " is closed");
            }
            if (s == ChannelState.ERROR) {
                return WcStatus.WR_FLUSH_ERR;
            }
            if (s != ChannelState.CONNECTED) {
                throw new TransportException(TransportError.WRONG_STATE, "channel " + channel.id() + " is " + s
                        + ": verbs binds a memory window through the connected queue pair; grant after connect");
            }
            SlotRing ring = sendRing;
            if (ring.free() < 1) {
                throw queueFull("send", ring);
            }
            long seq = ring.head;
            int slot = ring.index(seq);
            ring.clear(slot);
            ring.window[slot] = done;
            encoder.writeWindowWork(seq, work);
            ring.head = seq + 1;
            int rc = encoder.postSends();
            if (rc != 0) {
                ring.head = seq;
                ring.clear(slot);
                throw postRefused("ibv_post_send", rc);
            }
        } finally {
            postLock.unlock();
        }
        long deadline = System.nanoTime() + timeoutNanos;
        int spins = 0;
        while (!done.isDone()) {
            router.pollIfFree();
            if (done.isDone()) {
                break;
            }
            if (System.nanoTime() - deadline > 0) {
                return null;
            }
            if (++spins > 1000) {
                LockSupport.parkNanos(20_000);
            } else {
                Thread.onSpinWait();
            }
        }
        return done.join();
    }

    CompletableFuture<BatchResult> submit(List<WorkRequest> requests, Duration timeout) throws TransportException {
        TransportChecks.checkSubmit(requests, timeout);
        int n = requests.size();
        if (n == 0) {
            return CompletableFuture.completedFuture(new BatchResult(List.of(), false));
        }
        long[] ids = new long[n];
        Opcode[] ops = new Opcode[n];
        int sends = 0;
        int recvs = 0;
        for (int i = 0; i < n; i++) {
            WorkRequest r = requests.get(i);
            checkEntries(r);
            ids[i] = r.wrId();
            ops[i] = r.opcode();
            if (r.opcode() == Opcode.RECV) {
                recvs++;
            } else {
                sends++;
            }
        }
        if (sends > sendRing.capacity || recvs > recvRing.capacity) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "a batch of " + sends + " sends and "
                    + recvs + " receives exceeds the channel's queue depths (" + sendRing.capacity + " / "
                    + recvRing.capacity + ")");
        }
        long timeoutNanos = (timeout.compareTo(LONGEST_TIMEOUT) > 0 ? LONGEST_TIMEOUT : timeout).toNanos();
        PendingBatch batch = new PendingBatch(channel, ids, ops, System.nanoTime() + timeoutNanos);

        postLock.lock();
        try {
            for (int i = 0; i < n; i++) {
                TransportChecks.checkPostable(states.current(), channel.id(), ops[i]);
            }
            if (sendRing.free() < sends) {
                throw queueFull("send", sendRing);
            }
            if (recvRing.free() < recvs) {
                throw queueFull("receive", recvRing);
            }
            return postBatchLocked(requests, batch, sends, recvs);
        } finally {
            postLock.unlock();
        }
    }

    /** Writes and posts a checked batch (receives first); what the device refused fails locally. */
    private CompletableFuture<BatchResult> postBatchLocked(List<WorkRequest> requests, PendingBatch batch, int sends,
                                                           int recvs) throws TransportException {
        int n = requests.size();
        int[] sendRequest = new int[sends];
        int[] recvRequest = new int[recvs];
        long sendStart = sendRing.head;
        long recvStart = recvRing.head;
        int si = 0;
        int ri = 0;
        for (int i = 0; i < n; i++) {
            WorkRequest r = requests.get(i);
            if (r.opcode() == Opcode.RECV) {
                long seq = recvStart + ri;
                recvRing.set(recvRing.index(seq), r, true, batch, i);
                encoder.writeRecv(ri, seq, r, ri + 1 < recvs);
                recvRequest[ri++] = i;
            } else {
                long seq = sendStart + si;
                sendRing.set(sendRing.index(seq), r, true, batch, i);
                encoder.writeSend(si, seq, r, true, si + 1 < sends);
                sendRequest[si++] = i;
            }
        }
        router.batchRequestsPosted(n);
        batch.epoch = states.epochLocked();
        openBatches.add(batch);
        transport.poller().track(batch);

        // receives first, so a SEND in the same batch to ourselves finds them
        int postedRecvs = recvs;
        int rcRecv = 0;
        if (recvs > 0) {
            recvRing.head = recvStart + recvs;
            rcRecv = encoder.postRecvs();
            if (rcRecv != 0) {
                postedRecvs = encoder.recvsAccepted(recvs);
                recvRing.unwind(recvStart + postedRecvs, recvStart + recvs);
            }
        }
        int postedSends = 0;
        int rcSend = 0;
        if (sends > 0 && postedRecvs == recvs) {
            sendRing.head = sendStart + sends;
            rcSend = encoder.postSends();
            postedSends = sends;
            if (rcSend != 0) {
                postedSends = encoder.sendsAccepted(sends);
                sendRing.unwind(sendStart + postedSends, sendStart + sends);
            }
        } else if (sends > 0) {
            // the receives already failed: posting the sends would only add to the damage
            for (int k = 0; k < sends; k++) {
                sendRing.clear(sendRing.index(sendStart + k));
            }
        }
        int unposted = (recvs - postedRecvs) + (sends - postedSends);
        if (unposted == 0) {
            return batch.future;
        }
        router.batchRequestsUnposted(unposted);
        if (unposted == n) {
            openBatches.remove(batch);
            transport.poller().untrack(batch);
            throw rcRecv != 0 ? postRefused("ibv_post_recv", rcRecv) : postRefused("ibv_post_send", rcSend);
        }
        // partly posted: what went out completes as usual, the rest failed locally
        LOG.warn("channel {}: only {} of {} requests of a batch were posted (recv rc {}, send rc {})",
                channel.id(), n - unposted, n, Errno.describe(rcRecv), Errno.describe(rcSend));
        boolean last = false;
        for (int k = postedRecvs; k < recvs; k++) {
            last |= batch.record(recvRequest[k], batch.failure(recvRequest[k], WcStatus.LOC_QP_OP_ERR));
        }
        for (int k = postedSends; k < sends; k++) {
            last |= batch.record(sendRequest[k], batch.failure(sendRequest[k], WcStatus.LOC_QP_OP_ERR));
        }
        if (last) {
            transport.poller().finishLater(batch);
        }
        return batch.future;
    }

    /** Checks what can be checked without the lock: entry count, and that every region is ours and open. */
    private void checkEntries(WorkRequest request) throws TransportException {
        TransportChecks.checkRequest(request, maxSge,
                r -> r instanceof VerbsMemoryRegion v && v.transport() == transport, transport.name());
        for (ScatterGatherEntry e : request.sgList()) {
            VerbsMemoryRegion region = (VerbsMemoryRegion) e.region();
            if (!region.isOpen()) {
                throw new TransportException(TransportError.CLOSED, "region " + region + " is closed");
            }
        }
    }

    private TransportException queueFull(String queue, SlotRing ring) {
        return new TransportException(TransportError.RESOURCE_EXHAUSTED, "the " + queue + " queue of channel "
                + channel.id() + " is full (" + ring.capacity + " requests outstanding; an unsignaled request is"
                + " retired only by a later signaled one, so signal at least every " + ring.capacity + "th)");
    }

    private TransportException postRefused(String verb, int rc) {
        TransportError error = switch (rc) {
            case Errno.ENOMEM, Errno.EAGAIN -> TransportError.RESOURCE_EXHAUSTED;
            case Errno.EINVAL -> TransportError.INVALID_ARGUMENT;
            default -> TransportError.IO;
        };
        return new TransportException(error, verb + " on channel " + channel.id() + " refused the request: "
                + Errno.describe(rc));
    }
}
