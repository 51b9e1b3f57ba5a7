package org.objrdma.transport.tcp.internal;

import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
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
 * class holds the channel's state — its phases, its lock, its connection and peer — and the transitions its
 * connection calls back with (completions, receives, errors, the connection's end). The procedures that drive
 * it live beside it, one concept each, and move its state under this lock through the package-private fields
 * below: {@link ChannelDialer} (connect, and inbound connections), {@link ChannelPoster} (post, submit, poll),
 * {@link ChannelLifecycle} (reset, close, with {@link ChannelClosing}), {@link WorkQueues} (queues and in-order
 * completions), {@link TcpGrantTable} (grants).
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
    /** The peer's endpoint as connect named it; guarded by the lock. */
    EndpointInfo.Tcp remoteEndpoint;
    /** Who is connected on the other end; guarded by the lock. */
    PeerIdentity peer;
    /** Whom a connect in DIALING is dialing; guarded by the lock. */
    PeerIdentity dialTarget;
    /** Written under the lock; volatile so the writer thread can check it per frame without the lock. */
    volatile TcpConnection connection;
    /** Counts resets; a batch deadline from an earlier epoch is stale. Guarded by the lock. */
    long epoch;
    /** Submitted batches not yet completed, so a reset can wait for one whose deadline claimed it. */
    final Set<Batch> openBatches = ConcurrentHashMap.newKeySet();
    /** Send and receive queues, completions in order; guarded by the lock (see {@link WorkQueues}). */
    final WorkQueues queues;
    /** This channel's grant table: the only place its connection resolves an odd rkey. */
    private final TcpGrantTable grants;
    /** How the channel gets its connection: connect, and inbound connections. */
    private final ChannelDialer dialer = new ChannelDialer(this);
    /** Reset and close. */
    private final ChannelLifecycle lifecycle = new ChannelLifecycle(this);
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
     * An authenticated inbound connection from {@code from}: {@link ChannelDialer#acceptInbound}. Returns the
     * wire reply; on {@link Wire#REPLY_OK} {@code attached[0]} holds the new, not yet started connection.
     */
    byte acceptInbound(SocketChannel socket, PeerIdentity from, TcpConnection[] attached) {
        return dialer.acceptInbound(socket, from, attached);
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
    void revokeAllGrants() {
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

    // ------------------------------------------------------------------ reset and close (ChannelLifecycle)

    /** {@link ChannelLifecycle#reset}: back to INIT with the same id and key, once the connection stopped. */
    @Override
    public void reset() throws TransportException {
        lifecycle.reset();
    }

    /** {@link ChannelLifecycle#close}: begun at once, completed within the shutdown timeout. */
    @Override
    public void close() {
        lifecycle.close();
    }

    /** {@link ChannelLifecycle#beginClose}: the first half of a close, which never blocks; null if closed already. */
    ChannelClosing beginClose() {
        return lifecycle.beginClose();
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
