package org.objrdma.verbs.internal.transport;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.verbs.internal.ffi.DataPath;
import org.objrdma.verbs.internal.ffi.Errno;
import org.objrdma.verbs.internal.ffi.IbvConstants;
import org.objrdma.verbs.internal.ffi.IbvLayouts;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Completion routing of one channel: reads its completion queue into a native {@code ibv_wc} array and turns
 * each work completion into a {@link Completion} for whoever waits for it — a submitted request's batch, a
 * memory-window request's future, or the caller of {@code poll} (what no {@code poll} took yet waits in
 * {@code ready}, in order). RC completes each queue in order, so a send completion also retires the unsignaled
 * requests posted before it. Requests the device will never complete (after RESET or at close) are flushed
 * here with WR_FLUSH_ERR by the same routes.
 *
 * <p>{@code cqLock} serialises reading the queue ({@code poll}, the poller, a grant waiting for its window,
 * reset and close); it is never held while a batch future completes (the poller finishes batches later).
 */
final class CompletionRouter {
    private static final Logger LOG = LoggerFactory.getLogger(CompletionRouter.class);

    /** Completions one {@code poll_cq} call may return. */
    static final int WC_BATCH = 32;

    private static final long WC_SIZE = IbvLayouts.IBV_WC.byteSize();
    private static final long WC_WR_ID = IbvLayouts.offset(IbvLayouts.IBV_WC, "wr_id");
    private static final long WC_STATUS = IbvLayouts.offset(IbvLayouts.IBV_WC, "status");
    private static final long WC_OPCODE = IbvLayouts.offset(IbvLayouts.IBV_WC, "opcode");
    private static final long WC_VENDOR_ERR = IbvLayouts.offset(IbvLayouts.IBV_WC, "vendor_err");
    private static final long WC_BYTE_LEN = IbvLayouts.offset(IbvLayouts.IBV_WC, "byte_len");
    private static final long WC_IMM_DATA = IbvLayouts.offset(IbvLayouts.IBV_WC, "imm_data");
    private static final long WC_FLAGS = IbvLayouts.offset(IbvLayouts.IBV_WC, "wc_flags");

    private final long channelId;
    private final VerbsTransport transport;
    private final DataPath dataPath;
    private final MemorySegment cq;
    private final SlotRing sendRing;
    private final SlotRing recvRing;
    /** Told of every error completion (and a failed poll): the queue pair is in ERR. */
    private final Runnable onError;

    private final ReentrantLock cqLock = new ReentrantLock();
    private final MemorySegment wcs;
    /** Completions of posted requests read by the poller or by close, for the next {@link #poll}. */
    private final ArrayDeque<Completion> ready = new ArrayDeque<>();
    private boolean cqDestroyed;
    /** Submitted requests not completed yet: while above zero the poller reads this queue. */
    private final AtomicInteger batchOutstanding = new AtomicInteger();

    CompletionRouter(long channelId, VerbsTransport transport, Arena arena, MemorySegment cq, SlotRing sendRing,
                     SlotRing recvRing, Runnable onError) {
        this.channelId = channelId;
        this.transport = transport;
        this.dataPath = transport.dataPath();
        this.cq = cq;
        this.sendRing = sendRing;
        this.recvRing = recvRing;
        this.onError = onError;
        this.wcs = arena.allocate(WC_SIZE * WC_BATCH, 8);
    }

    /** {@code n} requests of a batch were posted (or are about to be): the poller must read this queue. */
    void batchRequestsPosted(int n) {
        batchOutstanding.addAndGet(n);
    }

    /** {@code n} requests counted by {@link #batchRequestsPosted} never reached the device. */
    void batchRequestsUnposted(int n) {
        batchOutstanding.addAndGet(-n);
    }

    /** True while submitted requests are outstanding: the poller must read this channel's queue. */
    boolean hasBatchWork() {
        return batchOutstanding.get() > 0;
    }

    /** {@code Channel.poll}: what waits in {@code ready} first, then the device's queue. */
    int poll(Completion[] out) {
        if (out == null || out.length == 0) {
            return 0;
        }
        if (!cqLock.tryLock()) {
            // the poller or close is reading the queue; what it reads waits in `ready` for the next call
            return 0;
        }
        try {
            int n = 0;
            Completion c;
            while (n < out.length && (c = ready.poll()) != null) {
                out[n++] = c;
            }
            if (n < out.length && !cqDestroyed) {
                int got = dataPath.pollCq(cq, Math.min(out.length - n, WC_BATCH), wcs);
                n = route(got, out, n);
            }
            return n;
        } finally {
            cqLock.unlock();
        }
    }

    /** One read of the queue, unless someone else is reading it; returns how many completions it read. */
    int pollIfFree() {
        if (!cqLock.tryLock()) {
            return 0;
        }
        try {
            if (cqDestroyed) {
                return 0;
            }
            int got = dataPath.pollCq(cq, WC_BATCH, wcs);
            route(got, null, 0);
            return Math.max(got, 0);
        } finally {
            cqLock.unlock();
        }
    }

    /**
     * Routes the device's completions until nothing is outstanding or {@code deadline} passes. With the queue
     * pair in ERR every posted request completes, except unsignaled sends that had already succeeded; those are
     * retired by the {@link #flushRemaining} that follows.
     */
    void drain(long deadline) {
        while (sendRing.outstanding() + recvRing.outstanding() > 0 && System.nanoTime() - deadline < 0) {
            int got;
            cqLock.lock();
            try {
                got = cqDestroyed ? 0 : dataPath.pollCq(cq, WC_BATCH, wcs);
                route(got, null, 0);
            } finally {
                cqLock.unlock();
            }
            if (got <= 0) {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    /** Requests of both queues the device never completed: WR_FLUSH_ERR to their batch, window or {@code ready}. */
    void flushRemaining() {
        cqLock.lock();
        try {
            flushRemaining(sendRing);
            flushRemaining(recvRing);
        } finally {
            cqLock.unlock();
        }
    }

    /** Destroys the completion queue, once; later calls do nothing. */
    void destroy(String qpName) {
        cqLock.lock();
        try {
            if (cqDestroyed) {
                return;
            }
            cqDestroyed = true;
            int rc = transport.library().destroyCq(cq);
            transport.closeStep("cq of " + qpName, rc);
        } finally {
            cqLock.unlock();
        }
    }

    /**
     * Turns {@code got} work completions in {@link #wcs} into {@link Completion}s: batch ones to their batch,
     * posted ones into {@code out} from {@code pos} while it has room, then to {@link #ready}. Called with
     * cqLock held. Returns the next free position in {@code out}.
     */
    private int route(int got, Completion[] out, int pos) {
        if (got < 0) {
            LOG.error("channel {}: poll_cq failed ({}); the completion queue overran or the device failed",
                    channelId, Errno.describe(-got));
            onError.run();
            return pos;
        }
        Telemetry telemetry = transport.telemetry();
        for (int i = 0; i < got; i++) {
            long w = i * WC_SIZE;
            long nativeId = wcs.get(JAVA_LONG, w + WC_WR_ID);
            int status = wcs.get(JAVA_INT, w + WC_STATUS);
            boolean isRecv = (nativeId & WorkRequestEncoder.RECV_BIT) != 0;
            long seq = nativeId & ~WorkRequestEncoder.RECV_BIT;
            SlotRing ring = isRecv ? recvRing : sendRing;
            long tail = ring.tail;
            if (seq < tail || seq >= ring.head) {
                LOG.warn("channel {}: completion for unknown request {} (outstanding {}..{}) ignored",
                        channelId, seq, tail, ring.head);
                continue;
            }
            // RC completes in order: unsignaled sends before this one have succeeded
            for (long s = tail; s < seq; s++) {
                ring.clear(ring.index(s));
            }
            int slot = ring.index(seq);
            WcStatus wcStatus = WcStatus.fromCode(status);
            CompletableFuture<WcStatus> windowWork = ring.window[slot];
            if (windowWork != null) {
                ring.clear(slot);
                ring.tail = seq + 1;
                if (!wcStatus.isSuccess()) {
                    onError.run();
                }
                windowWork.complete(wcStatus);
                continue;
            }
            Completion c = isRecv ? receiveCompletion(w, ring.userWrId[slot], wcStatus)
                    : sendCompletion(w, ring.userWrId[slot], wcStatus, WcOpcode.forRequest(ring.opcode[slot]),
                    ring.length[slot]);
            PendingBatch batch = ring.batch[slot];
            int batchIndex = ring.batchIndex[slot];
            ring.clear(slot);
            ring.tail = seq + 1;
            count(telemetry, c);
            if (!wcStatus.isSuccess()) {
                onError.run();
            }
            if (batch != null) {
                batchOutstanding.decrementAndGet();
                if (batch.record(batchIndex, c)) {
                    transport.poller().finishLater(batch);
                }
            } else if (out != null && pos < out.length) {
                out[pos++] = c;
            } else {
                ready.add(c);
            }
        }
        return pos;
    }

    private Completion receiveCompletion(long w, long userWrId, WcStatus wcStatus) {
        if (!wcStatus.isSuccess()) {
            return new Completion(userWrId, wcStatus, WcOpcode.RECV, 0, false, 0,
                    wcs.get(JAVA_INT, w + WC_VENDOR_ERR));
        }
        WcOpcode op = WcOpcode.fromCode(wcs.get(JAVA_INT, w + WC_OPCODE));
        boolean imm = (wcs.get(JAVA_INT, w + WC_FLAGS) & IbvConstants.IBV_WC_WITH_IMM) != 0;
        return new Completion(userWrId, wcStatus, op == null ? WcOpcode.RECV : op,
                Integer.toUnsignedLong(wcs.get(JAVA_INT, w + WC_BYTE_LEN)), imm,
                imm ? WorkRequestEncoder.toNetworkOrder(wcs.get(JAVA_INT, w + WC_IMM_DATA)) : 0, 0);
    }

    private Completion sendCompletion(long w, long userWrId, WcStatus wcStatus, WcOpcode op, long length) {
        return wcStatus.isSuccess()
                ? new Completion(userWrId, wcStatus, op, length, false, 0, 0)
                : new Completion(userWrId, wcStatus, op, 0, false, 0, wcs.get(JAVA_INT, w + WC_VENDOR_ERR));
    }

    /** cqLock held. */
    private void flushRemaining(SlotRing ring) {
        Telemetry telemetry = transport.telemetry();
        for (long s = ring.tail; s < ring.head; s++) {
            int slot = ring.index(s);
            CompletableFuture<WcStatus> windowWork = ring.window[slot];
            if (windowWork != null) {
                ring.clear(slot);
                windowWork.complete(WcStatus.WR_FLUSH_ERR);
                continue;
            }
            if (ring.opcode[slot] == null) {
                continue;
            }
            Completion c = Completion.failure(ring.userWrId[slot], WcStatus.WR_FLUSH_ERR,
                    WcOpcode.forRequest(ring.opcode[slot]));
            count(telemetry, c);
            PendingBatch batch = ring.batch[slot];
            if (batch != null) {
                batchOutstanding.decrementAndGet();
                batch.record(ring.batchIndex[slot], c);
            } else {
                ready.add(c);
            }
            ring.clear(slot);
        }
        ring.tail = ring.head;
    }

    private static void count(Telemetry telemetry, Completion c) {
        if (c.isSuccess()) {
            telemetry.increment(Counter.TRANSPORT_OPS_COMPLETED);
            if (c.opcode() == WcOpcode.RDMA_WRITE) {
                telemetry.add(Counter.TRANSPORT_BYTES_WRITTEN, c.byteLength());
            } else if (c.opcode() == WcOpcode.RDMA_READ) {
                telemetry.add(Counter.TRANSPORT_BYTES_READ, c.byteLength());
            }
        } else {
            telemetry.increment(Counter.TRANSPORT_OPS_FAILED);
            if (c.status() == WcStatus.REM_ACCESS_ERR) {
                telemetry.increment(Counter.TRANSPORT_REMOTE_ACCESS_DENIED);
            }
        }
    }
}
