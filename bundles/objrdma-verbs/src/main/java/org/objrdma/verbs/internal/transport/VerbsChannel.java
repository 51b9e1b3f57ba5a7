package org.objrdma.verbs.internal.transport;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelInfo;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryGrant;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.transport.common.Closer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An RC queue pair with its own completion queue: the owner that wires its parts and runs the two sequences
 * that span them, reset and close.
 *
 * <ul>
 *   <li>{@link WorkRequestEncoder}: the native work-request arrays, written in place and posted;</li>
 *   <li>{@link SlotRing} (one per queue): maps the sequence number the device sees back to the request;</li>
 *   <li>{@link QueuePairStates}: the queue pair's transitions and the channel state, under the post lock;</li>
 *   <li>{@link WorkPoster}: post, submit and memory-window requests;</li>
 *   <li>{@link CompletionRouter}: reads the completion queue and routes each completion;</li>
 *   <li>{@link ChannelGrants}: memory windows bound to this queue pair, or slice registrations.</li>
 * </ul>
 *
 * <p>Native memory: one shared arena per channel holds the work-request arrays and the {@code ibv_wc} array;
 * nothing is allocated per operation, and it is freed when the channel closes.
 *
 * <p>Reset: the same queue pair goes to ERR (the device flushes what it holds), its completions are drained,
 * then RESET (which drops anything the device still had, CQEs included; those requests are flushed here) and
 * INIT with the attributes of {@link VerbsTransport#openChannel}. The QPN and the initial PSN are kept, so
 * {@link #localEndpoint()} does not change and a peer that cached it connects again with it. (Its GID is the
 * source GID chosen at the last connect: on RoCE the one of the family the peer named, see {@code SourceGid}.)
 * Reusing the PSN is safe because the peer must reconnect too (its RTR sets the expected PSN anew) and because an
 * RC packet of the old connection cannot outlive the transport timeout; it is what the C core does (same QP, same
 * PSN). Each reset starts a new epoch; a batch deadline from an earlier epoch does not touch the queue pair.
 *
 * <p>Locks: the post lock ({@link QueuePairStates#lock}) serialises posting and state changes (post, submit,
 * connect, reset, close); the completion router's lock serialises reading the completion queue. Neither is held
 * while a batch future completes, so callbacks may use the channel.
 */
final class VerbsChannel implements Channel {
    private static final Logger LOG = LoggerFactory.getLogger(VerbsChannel.class);

    /** How long close waits for the device to flush what is in flight before it flushes the rest itself. */
    static final long FLUSH_WAIT_NANOS = 2_000_000_000L;

    private final long id;
    private final VerbsTransport transport;
    private final Arena arena;
    private final MemorySegment qp;
    private final int qpn;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final QueuePairStates states;
    private final ReentrantLock postLock;
    private final CompletionRouter router;
    private final WorkPoster poster;
    private final ChannelGrants grants;

    /**
     * Takes ownership of {@code arena}, {@code cq} and {@code qp} (a queue pair already in INIT).
     */
    VerbsChannel(long id, VerbsTransport transport, ChannelOptions options, Arena arena, MemorySegment cq,
                 MemorySegment qp, int qpn, int psn) {
        this.id = id;
        this.transport = transport;
        this.arena = arena;
        this.qp = qp;
        this.qpn = qpn;
        this.states = new QueuePairStates(id, transport, qp, qpn, psn);
        this.postLock = states.lock;
        SlotRing sendRing = new SlotRing(options.sendQueueDepth());
        SlotRing recvRing = new SlotRing(options.recvQueueDepth());
        WorkRequestEncoder encoder = new WorkRequestEncoder(arena, transport.dataPath(), qp, options.maxSge(),
                options.sendQueueDepth(), options.recvQueueDepth());
        this.router = new CompletionRouter(id, transport, arena, cq, sendRing, recvRing, states::markError);
        this.poster = new WorkPoster(this, transport, states, encoder, sendRing, recvRing, router, options.maxSge());
        this.grants = new ChannelGrants(this, transport);
    }

    // ---- identity and state -----------------------------------------------------------------------------

    @Override
    public long id() {
        return id;
    }

    @Override
    public String transportName() {
        return transport.name();
    }

    @Override
    public EndpointInfo localEndpoint() {
        return states.local();
    }

    @Override
    public EndpointInfo remoteEndpoint() {
        return states.remote();
    }

    /** {@link QueuePairStates#observed()}: refreshed from the device while CONNECTED, at most once a millisecond. */
    @Override
    public ChannelState state() {
        return states.observed();
    }

    /**
     * This channel as an operator sees it now: the peer is its queue pair number, LID and GID, and bytes are
     * not counted per queue pair (-1).
     */
    ChannelInfo info() {
        String peer = remoteEndpoint() instanceof EndpointInfo.Verbs v
                ? "qpn " + v.qpn() + " lid " + v.lid() + " gid " + v.gid() : "";
        return new ChannelInfo(id(), state(), peer, grants.liveCount(), -1, -1);
    }

    /** Grants alive now; for tests. */
    int grantCount() {
        return grants.liveCount();
    }

    int qpNum() {
        return qpn;
    }

    /** The native {@code ibv_qp*}; for tests that check the device's view of the state. */
    MemorySegment queuePair() {
        return qp;
    }

    // ---- work -----------------------------------------------------------------------------------------------

    /**
     * INIT → RTR → RTS towards {@code remote} ({@link QueuePairStates#connect}). Verbs needs no round trip
     * here: the peer's numbers come from the control plane, so {@code connectTimeout} is not used.
     */
    @Override
    public void connect(EndpointInfo remote) throws TransportException {
        states.connect(remote);
    }

    @Override
    public void post(WorkRequest request) throws TransportException {
        poster.post(request);
    }

    @Override
    public CompletableFuture<BatchResult> submit(List<WorkRequest> requests, Duration timeout) {
        try {
            return poster.submit(requests, timeout);
        } catch (TransportException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public int poll(Completion[] out) {
        return router.poll(out);
    }

    /** See {@link ChannelGrants}: a memory window bound to this queue pair, or a slice registration. */
    @Override
    public MemoryGrant grant(MemoryRegion region, long offset, long length, Set<Access> access)
            throws TransportException {
        if (closed.get() || states.qpClosed()) {
            throw new TransportException(TransportError.CLOSED, "channel " + id + " is closed");
        }
        return grants.grant(region, offset, length, access);
    }

    /** {@link WorkPoster#postWindowWork}, for {@link ChannelGrants}. */
    WcStatus postWindowWork(WindowWork work, long timeoutNanos) throws TransportException {
        return poster.postWindowWork(work, timeoutNanos);
    }

    /** True while submitted requests are outstanding: the poller must read this channel's queue. */
    boolean hasBatchWork() {
        return router.hasBatchWork();
    }

    /** One poll by the poller thread; returns how many completions it read. */
    int pollFromPoller() {
        return router.pollIfFree();
    }

    /** A batch ended (finished, timed out or flushed): forget it. */
    void batchEnded(PendingBatch batch) {
        poster.batchEnded(batch);
    }

    /** The poller abandoned a batch of {@code batchEpoch} at its deadline: {@link QueuePairStates#failAfterTimeout}. */
    void failAfterTimeout(long batchEpoch) {
        states.failAfterTimeout(batchEpoch);
    }

    // ---- reset ------------------------------------------------------------------------------------------

    /**
     * ERR, drain, RESET, INIT on the same queue pair (see the class comment). Batches posted before the reset
     * complete on the calling thread before it returns, as at close.
     */
    @Override
    public void reset() throws TransportException {
        // the read side of the transport's lifecycle lock: a transport close waits until the reset is done
        transport.lifecycle().readLock().lock();
        try {
            List<PendingBatch> earlier = resetQueuePair();
            for (PendingBatch b : earlier) {
                transport.poller().untrack(b);
                if (!b.abandon(WcStatus.WR_FLUSH_ERR, false, () -> { })) {
                    awaitFinished(b);
                }
            }
        } finally {
            transport.lifecycle().readLock().unlock();
        }
    }

    /** The state changes of a reset; returns the batches posted before it (empty in INIT, where nothing happens). */
    private List<PendingBatch> resetQueuePair() throws TransportException {
        if (states.current() != ChannelState.INIT && !closed.get() && !states.qpClosed()) {
            grants.revokeAll(false); // the next connection may be to another peer
        }
        long startedIn;
        List<PendingBatch> outstanding;
        postLock.lock();
        try {
            if (closed.get() || states.qpClosed()) {
                throw new TransportException(TransportError.CLOSED, "channel " + id + " is closed");
            }
            if (states.current() == ChannelState.INIT) {
                return List.of(); // nothing to undo: receives posted before connecting stay posted
            }
            startedIn = states.epochLocked();
            // batches open now: the drain below may finish some of them, and their futures then complete on the
            // poller thread; reset must wait for those too, not only for the ones still open at the end
            outstanding = poster.openBatches();
            states.toErrorForResetLocked();
        } finally {
            postLock.unlock();
        }
        // the device now completes everything it holds with WR_FLUSH_ERR: route that before RESET drops it
        router.drain(System.nanoTime() + FLUSH_WAIT_NANOS);
        postLock.lock();
        try {
            if (states.qpClosed()) {
                throw new TransportException(TransportError.CLOSED,
                        "channel " + id + " was closed while resetting");
            }
            if (states.epochLocked() != startedIn) {
                return List.of(); // a concurrent reset re-armed the queue pair; it completes the batches
            }
            states.toResetLocked();
            // RESET dropped what the device had not completed by the deadline, and its CQEs: flush it here
            router.flushRemaining();
            states.toInitLocked();
            // submit adds under postLock: these all precede the reset
            Set<PendingBatch> all = new LinkedHashSet<>(outstanding);
            all.addAll(poster.openBatches());
            return List.copyOf(all);
        } finally {
            postLock.unlock();
        }
    }

    /** A batch the poller claimed at its deadline completes on the poller; wait for it (bounded). */
    private void awaitFinished(PendingBatch b) {
        try {
            b.future.get(FLUSH_WAIT_NANOS, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            LOG.warn("channel {}: a batch of before the reset did not complete within {} ms", id,
                    TimeUnit.NANOSECONDS.toMillis(FLUSH_WAIT_NANOS));
        } catch (ExecutionException e) {
            // completed: a batch future never fails once posted
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- close ------------------------------------------------------------------------------------------

    /**
     * Both halves of close, each even when the other throws, then tells the transport; a failure is logged
     * (a channel's close does not throw).
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        // the read side of the transport's lifecycle lock: a transport close waits until this one is done
        transport.lifecycle().readLock().lock();
        try {
            Closer.closeAllQuietly(e -> LOG.error("channel {}: failure while closing", id, e),
                    this::closeQueuePair, this::closeCompletionQueue);
        } finally {
            transport.lifecycle().readLock().unlock();
            transport.channelClosed(this);
        }
    }

    /**
     * First half of close (the transport runs it for every channel before any {@link #closeCompletionQueue}):
     * no more posts, the queue pair to ERR, wait for the device's flushes, flush the rest here, complete every
     * batch, destroy the queue pair. Idempotent.
     */
    void closeQueuePair() {
        grants.revokeAll(true); // before anything else: windows need no work request to die, and free the MRs
        if (!states.close()) {
            return;
        }
        router.drain(System.nanoTime() + FLUSH_WAIT_NANOS);
        router.flushRemaining();
        for (PendingBatch b : poster.openBatches()) {
            transport.poller().untrack(b);
            b.abandon(WcStatus.WR_FLUSH_ERR, false, () -> { });
        }
        int rc = transport.library().destroyQp(qp);
        transport.closeStep("qp " + qpn, rc);
    }

    /** Second half of close: destroy the completion queue and free the channel's native memory. Idempotent. */
    void closeCompletionQueue() {
        router.destroy("qp " + qpn);
        postLock.lock();
        try {
            arena.close();
        } finally {
            postLock.unlock();
        }
    }

    @Override
    public String toString() {
        return "VerbsChannel[" + id + ", " + transport.name() + ", qpn " + qpn + ", " + states.current() + "]";
    }
}
