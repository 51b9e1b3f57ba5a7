package org.objrdma.transport.tcp.internal;

import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
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
import org.objrdma.transport.common.TransportChecks;

/**
 * A channel of the TCP transport: the software twin of an RC queue pair, carried by one TCP connection. This
 * class is the channel's state machine — its phases, its lock, and every transition (connect's steps, an
 * inbound connection, errors, the connection's callbacks, reset, close). The procedures that drive it live
 * beside it, one concept each: {@link ChannelDialer} (connect), {@link ChannelPoster} (post, submit, poll),
 * {@link WorkQueues} (queues and in-order completions), {@link TcpGrantTable} (grants). The poster reads and
 * moves the state under this lock through the package-private fields below, as this class's own methods would.
 *
 * <p><b>Connecting.</b> {@link #connect} dials the peer's memory agent and authenticates with the peer
 * channel's key. A channel in INIT also accepts an authenticated inbound connection by itself; that is what
 * lets a side that only registered memory and opened a channel be driven one-sidedly (the cuObject flow:
 * the server connects to the client's channel and WRITEs/READs its memory; the client never calls
 * connect). When both sides call connect (RC shape), the side that is already connected by the peer's dial
 * just checks that the endpoint names that peer; when both dial at once, the side whose
 * {@link PeerIdentity} sorts lower keeps its dial and the other waits for it, so there is always exactly one
 * connection.
 *
 * <p><b>Grants.</b> The channel's grant table ({@link #grant}) is the only place its connection resolves an
 * odd rkey, so a grant is reachable through this channel alone; a reset or close revokes every grant, once the
 * connection's threads have stopped.
 *
 * <p><b>Completions</b> are delivered in posting order, as a verbs send queue does: a request that finished
 * early waits for the older ones. Any failure puts the channel in ERROR before its completion is delivered;
 * the connection is then cut and every unfinished request is flushed once the connection's threads have
 * stopped, so memory named by a flushed request is no longer touched when its completion arrives.
 *
 * <p><b>Reset.</b> {@link #reset} cuts the connection, waits for its threads and flushes what is left, then
 * returns the channel to INIT with the same id and key: the agent accepts an authenticated connection to it
 * again. Each reset starts a new {@code epoch}. A connection calls back into the channel with itself as the
 * first argument, and a call from anything but the current connection is ignored, so a connection from
 * before a reset can never complete, take or fail work of the channel after it. A batch deadline set in an
 * earlier epoch cannot put the channel in ERROR either.
 */
final class TcpChannel implements Channel {

    enum Phase { INIT, DIALING, CONNECTED, ERROR, CLOSED }

    private final TcpTransport transport;
    private final long id;
    private final byte[] key;
    private final ChannelOptions options;
    private final EndpointInfo.Tcp localEndpoint;
    private final PeerIdentity self;

    final ReentrantLock lock = new ReentrantLock();
    final Condition changed = lock.newCondition();
    volatile Phase phase = Phase.INIT;
    private EndpointInfo.Tcp remoteEndpoint;
    private PeerIdentity peer;
    private PeerIdentity dialTarget;
    /** Written under the lock; volatile so the writer thread can check it per frame without the lock. */
    volatile TcpConnection connection;
    /** Counts resets; a batch deadline from an earlier epoch is stale. Guarded by the lock. */
    long epoch;
    /** A reset is waiting for the old connection's threads; a second reset waits for it. Guarded by the lock. */
    private boolean resetting;
    /** Submitted batches not yet completed, so a reset can wait for one whose deadline claimed it. */
    final Set<Batch> openBatches = ConcurrentHashMap.newKeySet();
    /** Send and receive queues, completions in order; guarded by the lock (see {@link WorkQueues}). */
    final WorkQueues queues;
    /** This channel's grant table: the only place its connection resolves an odd rkey. */
    private final TcpGrantTable grants;
    /** How {@link #connect} reaches the peer (the procedure; the states it moves through stay here). */
    private final ChannelDialer dialer = new ChannelDialer(this);
    /** How work is posted and submitted (checks, queueing, batches); the states it checks stay here. */
    private final ChannelPoster poster = new ChannelPoster(this);

    TcpChannel(TcpTransport transport, long id, byte[] key, ChannelOptions options) {
        this.transport = transport;
        this.id = id;
        this.key = key;
        this.options = options;
        this.localEndpoint = new EndpointInfo.Tcp(transport.agentAddress(), id, key);
        this.self = new PeerIdentity(transport.agentAddress(), id);
        this.queues = new WorkQueues(transport);
        this.grants = new TcpGrantTable(this, transport);
    }

    byte[] key() {
        return key;
    }

    ChannelOptions options() {
        return options;
    }

    TcpTransport transport() {
        return transport;
    }

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
        return localEndpoint;
    }

    @Override
    public EndpointInfo remoteEndpoint() {
        lock.lock();
        try {
            return remoteEndpoint;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public ChannelState state() {
        return switch (phase) {
            case INIT, DIALING -> ChannelState.INIT;
            case CONNECTED -> ChannelState.CONNECTED;
            case ERROR -> ChannelState.ERROR;
            case CLOSED -> ChannelState.CLOSED;
        };
    }

    /** True once the channel can carry no more work on {@code from} (ERROR, CLOSED, or a connection since replaced). */
    boolean isFailed(TcpConnection from) {
        Phase p = phase;
        return p == Phase.ERROR || p == Phase.CLOSED || connection != from;
    }

    /** This channel as an operator sees it now. */
    ChannelInfo info() {
        PeerIdentity who = peer();
        String peerText = "";
        if (who != null) {
            String host = who.address().getHostString();
            peerText = (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + who.address().getPort() + "#"
                    + who.channelId();
        }
        return new ChannelInfo(id, state(), peerText, grants.size(), queues.bytesWritten(), queues.bytesRead());
    }

    /** Who is connected on the other end, or null. */
    PeerIdentity peer() {
        lock.lock();
        try {
            return peer;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ connecting

    @Override
    public void connect(EndpointInfo remote) throws TransportException {
        dialer.connect(remote);
    }

    /** This channel's own identity: the agent's address and the channel id. */
    PeerIdentity self() {
        return self;
    }

    /**
     * Connect, step 1 ({@link ChannelDialer}): INIT becomes DIALING toward {@code wanted}; false if the peer
     * dialed us first and the connection is already that peer's (connect then has nothing to do). Refused in
     * any other state.
     */
    boolean beginDial(PeerIdentity wanted, EndpointInfo.Tcp target) throws TransportException {
        lock.lock();
        try {
            switch (phase) {
                case CONNECTED -> {
                    // the peer dialed us first: fine if the control plane names that same peer
                    if (wanted.equals(peer) && remoteEndpoint == null) {
                        remoteEndpoint = target;
                        return false;
                    }
                    throw new TransportException(TransportError.WRONG_STATE,
                            "channel " + id + " is already connected to " + peer);
                }
                case INIT -> {
                    phase = Phase.DIALING;
                    dialTarget = wanted;
                    return true;
                }
                default -> throw new TransportException(TransportError.WRONG_STATE,
                        "channel " + id + " cannot connect in state " + phase);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Connect failed before a connection: a refused connect changes nothing (DIALING back to INIT). */
    void dialFailed() {
        lock.lock();
        try {
            if (phase == Phase.DIALING) {
                phase = Phase.INIT;
                dialTarget = null;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Our dial got through: the socket becomes this channel's connection, not yet started, unless the channel
     * left DIALING meanwhile (then null, and the caller closes the socket).
     */
    TcpConnection attachDialed(SocketChannel socket, PeerIdentity wanted, EndpointInfo.Tcp target) {
        lock.lock();
        try {
            if (phase != Phase.DIALING) {
                return null;
            }
            TcpConnection started = attachLocked(socket, wanted);
            remoteEndpoint = target;
            return started;
        } finally {
            lock.unlock();
        }
    }

    /** The refusal of a connect that found the channel in another state than it left it in. */
    TransportException leftInit() {
        return new TransportException(TransportError.WRONG_STATE,
                "channel " + id + " left INIT while connecting (now " + phase + ")");
    }

    /**
     * Crossed dials where the peer sorts lower: its dial to us wins; waits for it to arrive until
     * {@code deadline} ({@link System#nanoTime}).
     */
    void awaitCrossedDial(PeerIdentity wanted, EndpointInfo.Tcp target, long deadline) throws TransportException {
        lock.lock();
        try {
            while (phase == Phase.DIALING) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    phase = Phase.INIT;
                    dialTarget = null;
                    throw new TransportException(TransportError.TIMEOUT, "peer " + wanted
                            + " dialed too but its connection did not arrive within " + options.connectTimeout());
                }
                changed.awaitNanos(left);
            }
            if (phase == Phase.CONNECTED && wanted.equals(peer)) {
                remoteEndpoint = target;
                return;
            }
            throw leftInit();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (phase == Phase.DIALING) {
                phase = Phase.INIT;
                dialTarget = null;
            }
            throw new TransportException(TransportError.CONNECT_FAILED, "interrupted while connecting", e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * An authenticated inbound connection from {@code dialer}: decides under the lock whether it becomes this
     * channel's connection. Returns the wire reply; on {@link Wire#REPLY_OK} {@code attached[0]} holds the
     * new, not yet started connection, which the agent starts after sending the reply.
     */
    byte acceptInbound(SocketChannel socket, PeerIdentity dialer, TcpConnection[] attached) {
        lock.lock();
        try {
            switch (phase) {
                case INIT -> {
                    attached[0] = attachLocked(socket, dialer);
                    return Wire.REPLY_OK;
                }
                case DIALING -> {
                    if (!dialer.equals(dialTarget)) {
                        return Wire.REPLY_BUSY;
                    }
                    if (self.compareTo(dialer) < 0) {
                        return Wire.REPLY_CROSSED; // our own dial wins
                    }
                    attached[0] = attachLocked(socket, dialer);
                    changed.signalAll();
                    return Wire.REPLY_OK;
                }
                case CONNECTED -> {
                    // the dials crossed and ours already won: the dialer holds that connection and waits for it
                    return dialer.equals(peer) ? Wire.REPLY_CROSSED : Wire.REPLY_BUSY;
                }
                default -> {
                    return Wire.REPLY_BUSY;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private TcpConnection attachLocked(SocketChannel socket, PeerIdentity who) {
        TcpConnection c = transport.newConnection(this, socket, who);
        connection = c;
        peer = who;
        dialTarget = null;
        phase = Phase.CONNECTED;
        return c;
    }

    // ------------------------------------------------------------------ grants

    /**
     * Grants rkeys are odd and region rkeys even (see {@link TcpTransport#register}), so a grant can never be
     * mistaken for a region of the deprecated whole-region path or the other way round.
     */
    @Override
    public MemoryGrant grant(MemoryRegion region, long offset, long length, Set<Access> access)
            throws TransportException {
        return grant(region, offset, length, access, false);
    }

    /**
     * A grant whose {@link MemoryGrant#address()} is a random page-aligned base below 2^62 (so base + length never
     * wraps), not the slice's address: the connection maps a peer's address back through the grant
     * ({@link TcpGrant#regionOffset}), and checks the bounds against the base as for any grant.
     */
    @Override
    public MemoryGrant grantOpaque(MemoryRegion region, long offset, long length, Set<Access> access)
            throws TransportException {
        return grant(region, offset, length, access, true);
    }

    private MemoryGrant grant(MemoryRegion region, long offset, long length, Set<Access> access, boolean opaque)
            throws TransportException {
        TransportChecks.checkGrant(region, offset, length, access, this::isOurs, transport.name());
        TcpRegion r = (TcpRegion) region;
        lock.lock();
        try {
            switch (phase) {
                case CLOSED -> throw new TransportException(TransportError.CLOSED, "channel " + id + " is closed");
                case ERROR -> throw new TransportException(TransportError.WRONG_STATE, "channel " + id
                        + " is in ERROR: reset it first");
                default -> {
                    // INIT, DIALING, CONNECTED
                }
            }
            return grants.create(r, offset, length, access, opaque);
        } finally {
            lock.unlock();
        }
    }

    /** A region registered with this channel's transport. */
    boolean isOurs(MemoryRegion region) {
        return region instanceof TcpRegion r && r.transport() == transport;
    }

    /** The live grant of this channel with {@code rkey}, or null. Reader thread. */
    TcpGrant grantByRkey(int rkey) {
        return grants.byRkey(rkey);
    }

    /** Called by {@link TcpGrant#revoke()} once, as soon as the grant refuses new leases. */
    void forgetGrant(TcpGrant grant) {
        grants.forget(grant);
    }

    /** Grants in the table now; for tests. */
    int grantCount() {
        return grants.size();
    }

    /** Revokes every grant; called once the connection's threads are gone (reset, close). */
    private void revokeAllGrants() {
        grants.revokeAll();
    }

    /** Cuts the current connection, if any, saying why in the log. */
    void abortConnection(EndCause cause, String why) {
        TcpConnection c = connection;
        if (c != null) {
            TcpTransport.LOG.warn("channel {}: cutting the connection to {}: {}", id, c.peer(), why);
            c.abort(cause);
        }
    }

    // ------------------------------------------------------------------ posting (ChannelPoster)

    @Override
    public void post(WorkRequest request) throws TransportException {
        poster.post(request);
    }

    @Override
    public int poll(Completion[] out) {
        return poster.poll(out);
    }

    @Override
    public CompletableFuture<BatchResult> submit(List<WorkRequest> requests, Duration timeout) {
        return poster.submit(requests, timeout);
    }

    // ------------------------------------------------------------------ errors and completion

    /** After the lock is released: cuts {@code toAbort} (if any), then delivers. */
    void finishPost(List<Runnable> deliveries, TcpConnection toAbort) {
        if (toAbort != null) {
            toAbort.abort(EndCause.LOCAL_ERROR);
        }
        deliveries.forEach(Runnable::run);
    }

    /**
     * Puts the channel in ERROR for a local reason (a batch deadline of epoch {@code postedIn}): the connection
     * is cut and every unfinished request flushed once its threads stopped. A deadline from before a reset
     * changes nothing: its batch was flushed by that reset.
     */
    void enterError(long postedIn, EndCause cause, String why) {
        List<Runnable> deliveries = new ArrayList<>();
        TcpConnection c;
        lock.lock();
        try {
            if (phase == Phase.CLOSED || postedIn != epoch) {
                return;
            }
            if (phase != Phase.ERROR) {
                TcpTransport.LOG.debug("channel {} in error: {}", id, why);
            }
            phase = Phase.ERROR;
            c = errorLocked(cause, deliveries);
        } finally {
            lock.unlock();
        }
        finishPost(deliveries, c);
    }

    /**
     * With the phase already ERROR or CLOSED: returns the connection to cut, or — when there is none — flushes
     * everything at once.
     */
    TcpConnection errorLocked(EndCause cause, List<Runnable> deliveries) {
        dialTarget = null;
        changed.signalAll();
        if (connection != null) {
            return connection;
        }
        queues.flushAll(cause, deliveries);
        return null;
    }

    /** The peer's side is being refused (we sent a negative acknowledgement): no new work from here on. */
    void markRefusing(TcpConnection from) {
        lock.lock();
        try {
            if (phase == Phase.CONNECTED && from == connection) {
                phase = Phase.ERROR;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The request {@code from} carries with {@code seq}, or null. Reader thread. */
    SendOp inFlight(TcpConnection from, long seq) {
        return queues.inFlight(from, seq);
    }

    /** Ends {@code op} with {@code status}; a failure puts the channel in ERROR first. */
    void finish(TcpConnection from, SendOp op, WcStatus status, int vendorError) {
        List<Runnable> deliveries = new ArrayList<>(2);
        lock.lock();
        try {
            if (op.done || from != connection) {
                return;
            }
            op.done = true;
            op.status = status;
            op.vendorError = vendorError;
            if (!status.isSuccess() && phase != Phase.CLOSED) {
                phase = Phase.ERROR;
                changed.signalAll();
            }
            queues.collectDeliverable(deliveries);
        } finally {
            lock.unlock();
        }
        deliveries.forEach(Runnable::run);
    }

    /**
     * Takes the oldest posted receive for a peer's SEND or WRITE_WITH_IMM, waiting up to {@code wait} for one
     * (receiver not ready). Null if none came or the channel failed. Reader thread.
     */
    RecvOp takeRecv(TcpConnection from, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        lock.lock();
        try {
            while (!queues.hasReceive()) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || phase != Phase.CONNECTED || from != connection) {
                    return null;
                }
                changed.awaitNanos(left);
            }
            if (phase != Phase.CONNECTED || from != connection) {
                return null;
            }
            return queues.takeReceive();
        } finally {
            lock.unlock();
        }
    }

    /** Ends the receive taken by {@link #takeRecv}; a failure puts the channel in ERROR first. Reader thread. */
    void completeRecv(TcpConnection from, RecvOp recv, Completion c) {
        Runnable delivery;
        lock.lock();
        try {
            if (from != connection || !queues.endReceive(recv)) {
                return; // flushed meanwhile
            }
            if (!c.isSuccess() && phase != Phase.CLOSED) {
                phase = Phase.ERROR;
                changed.signalAll();
            }
            delivery = queues.deliverRecv(recv, c);
        } finally {
            lock.unlock();
        }
        delivery.run();
    }

    /** The connection's threads have both stopped: flush what is left. */
    void connectionEnded(TcpConnection ended, EndCause cause) {
        List<Runnable> deliveries = new ArrayList<>();
        lock.lock();
        try {
            if (connection != ended) {
                return;
            }
            connection = null;
            if (phase == Phase.CONNECTED) {
                phase = Phase.ERROR;
                TcpTransport.LOG.debug("channel {} in error: {}", id, cause.text());
            }
            queues.flushAll(cause, deliveries);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        deliveries.forEach(Runnable::run);
    }

    /**
     * Back to INIT with the same id and key. The phase goes to ERROR first, so nothing new reaches the old
     * connection (sends posted meanwhile are flushed, inbound connections are refused as busy); then the
     * connection is cut and its threads are awaited, which flushes every unfinished request with the reset's
     * cause (the oldest keeps a status it already had from an earlier failure). Waiting for the threads is
     * what makes "no longer touched" true, so the call is refused on one of them, and if they do not stop
     * within {@code shutdown.timeout.ms} the channel stays in ERROR and TIMEOUT is thrown.
     */
    @Override
    public void reset() throws TransportException {
        TcpConnection old;
        List<Batch> earlier = List.of();
        List<Runnable> deliveries = new ArrayList<>();
        lock.lock();
        try {
            while (resetting) {
                changed.awaitUninterruptibly(); // another reset is waiting for the same connection
            }
            switch (phase) {
                case CLOSED -> throw new TransportException(TransportError.CLOSED, "channel " + id + " is closed");
                case INIT, DIALING -> {
                    return; // nothing to undo: receives posted before connecting stay posted
                }
                default -> {
                    // CONNECTED or ERROR: cut, flush, re-arm
                }
            }
            old = connection;
            if (old != null && old.isOwnThread(Thread.currentThread())) {
                throw new TransportException(TransportError.WRONG_STATE, "channel " + id
                        + " cannot be reset from its own connection thread (a completion callback): hand it on");
            }
            if (old != null) {
                old.recordCause(EndCause.RESET); // a reader woken by the phase change must not name another
            }
            phase = Phase.ERROR;
            dialTarget = null;
            if (old == null) {
                // the connection already ended and flushed; anything posted since was flushed at once
                queues.flushAll(EndCause.RESET, deliveries);
                earlier = rearmLocked();
            } else {
                resetting = true;
            }
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (old != null) {
            old.abort(EndCause.RESET);
            boolean ended = old.awaitEnded(transport.settings().shutdownTimeout().toNanos());
            lock.lock();
            try {
                resetting = false;
                changed.signalAll();
                if (phase == Phase.CLOSED) {
                    throw new TransportException(TransportError.CLOSED,
                            "channel " + id + " was closed while resetting");
                }
                if (!ended) {
                    throw new TransportException(TransportError.TIMEOUT, "channel " + id + ": the connection to "
                            + old.peer() + " did not stop within " + transport.settings().shutdownTimeout()
                            + "; the channel stays in ERROR");
                }
                earlier = rearmLocked(); // connectionEnded has flushed everything and cleared the connection
            } finally {
                lock.unlock();
            }
        }
        revokeAllGrants(); // a reset channel may next be connected by another peer
        deliveries.forEach(Runnable::run);
        awaitCompletion(earlier);
        TcpTransport.LOG.debug("channel {} reset to INIT", id);
    }

    /** ERROR without a connection → INIT, a new epoch. Returns the batches submitted before it. */
    private List<Batch> rearmLocked() {
        epoch++;
        phase = Phase.INIT;
        remoteEndpoint = null;
        peer = null;
        dialTarget = null;
        changed.signalAll();
        return List.copyOf(openBatches); // submit adds under the lock: these all precede the reset
    }

    /**
     * A batch whose deadline fired just before the reset was claimed by the timer and completes on it; the
     * flush cannot complete it. Wait (bounded) so that every batch future is complete when reset returns.
     */
    private void awaitCompletion(List<Batch> batches) {
        long deadline = System.nanoTime() + transport.settings().shutdownTimeout().toNanos();
        for (Batch b : batches) {
            long left = deadline - System.nanoTime();
            try {
                b.future().get(Math.max(0, left), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                TcpTransport.LOG.warn("channel {}: a batch of before the reset did not complete within {}", id,
                        transport.settings().shutdownTimeout());
                return;
            } catch (ExecutionException e) {
                // completed: a batch future only fails when it could not be posted
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Closes in two halves so that a transport closing many channels lets every peer's grace run at once
     * ({@link TcpTransport#close}): {@link #beginClose} never blocks, {@link Closing#complete} waits, bounded.
     */
    @Override
    public void close() {
        Closing closing = beginClose();
        if (closing != null) {
            closing.complete(System.nanoTime() + transport.settings().shutdownTimeout().toNanos());
        }
    }

    /** A close begun by {@link #beginClose}: the connection finishing (or null) and what to deliver after it. */
    final class Closing {
        private final TcpConnection connection;
        private final List<Runnable> deliveries;

        private Closing(TcpConnection connection, List<Runnable> deliveries) {
            this.connection = connection;
            this.deliveries = deliveries;
        }

        /**
         * Waits (never past {@code deadline}, a {@link System#nanoTime} value) for the peer's hang-up, at most
         * the finish grace; then cuts the socket, waits for the connection's threads to stop and joins them —
         * so a flushed completion means "no longer touched" — unless called on one of them. Threads that do not
         * stop in time are logged and the work is flushed anyway. Then the grants are revoked and the flushed
         * completions delivered.
         */
        void complete(long deadline) {
            TcpConnection c = connection;
            if (c != null) {
                c.finishBy(deadline);
                if (!c.isOwnThread(Thread.currentThread())) {
                    boolean stopped = c.awaitEnded(Math.max(0, deadline - System.nanoTime()))
                            && c.joinThreads(deadline);
                    if (!stopped) {
                        TcpTransport.LOG.warn("channel {}: connection threads did not stop within {}; flushing "
                                + "anyway", id, transport.settings().shutdownTimeout());
                        connectionEnded(c, EndCause.LOCAL_CLOSE);
                    }
                }
            }
            revokeAllGrants();
            deliveries.forEach(Runnable::run);
            transport.channelClosed(TcpChannel.this);
        }
    }

    /**
     * First half of {@link #close}: the channel is CLOSED at once (nothing new is posted, granted or accepted)
     * and its connection begins a graceful end. Never blocks. Null if the channel was closed already.
     */
    Closing beginClose() {
        TcpConnection c;
        List<Runnable> deliveries = new ArrayList<>();
        lock.lock();
        try {
            if (phase == Phase.CLOSED) {
                return null;
            }
            phase = Phase.CLOSED;
            dialTarget = null;
            changed.signalAll();
            c = connection;
            if (c == null) {
                queues.flushAll(EndCause.LOCAL_CLOSE, deliveries);
            }
        } finally {
            lock.unlock();
        }
        if (c != null) {
            c.beginFinish(EndCause.LOCAL_CLOSE);
        }
        return new Closing(c, deliveries);
    }

    /** Waits until the phase is no longer {@code from}; for tests and the transport's shutdown. */
    boolean awaitPhaseChange(long nanos) throws InterruptedException {
        lock.lock();
        try {
            Phase from = phase;
            long deadline = System.nanoTime() + nanos;
            while (phase == from) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                changed.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "TcpChannel[" + id + " " + phase + (peer == null ? "" : " to " + peer) + "]";
    }
}
