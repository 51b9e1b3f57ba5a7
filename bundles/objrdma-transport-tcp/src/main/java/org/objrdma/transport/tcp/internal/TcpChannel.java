package org.objrdma.transport.tcp.internal;

import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.objrdma.api.telemetry.Counter;
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
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/**
 * A channel of the TCP transport: the software twin of an RC queue pair, carried by one TCP connection.
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

    private enum Phase { INIT, DIALING, CONNECTED, ERROR, CLOSED }

    private final TcpTransport transport;
    private final long id;
    private final byte[] key;
    private final ChannelOptions options;
    private final EndpointInfo.Tcp localEndpoint;
    private final PeerIdentity self;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private volatile Phase phase = Phase.INIT;
    private EndpointInfo.Tcp remoteEndpoint;
    private PeerIdentity peer;
    private PeerIdentity dialTarget;
    /** Written under the lock; volatile so the writer thread can check it per frame without the lock. */
    private volatile TcpConnection connection;
    /** Counts resets; a batch deadline from an earlier epoch is stale. Guarded by the lock. */
    private long epoch;
    /** A reset is waiting for the old connection's threads; a second reset waits for it. Guarded by the lock. */
    private boolean resetting;
    /** Submitted batches not yet completed, so a reset can wait for one whose deadline claimed it. */
    private final Set<Batch> openBatches = ConcurrentHashMap.newKeySet();
    private long nextSeq = 1;
    private final ArrayDeque<SendOp> sendQueue = new ArrayDeque<>();
    private final ArrayDeque<RecvOp> recvQueue = new ArrayDeque<>();
    /** The receive a peer's SEND or WRITE_WITH_IMM is filling right now, taken off {@link #recvQueue}. */
    private RecvOp activeRecv;

    /** Requests on the wire by sequence number, for the reader thread. */
    private final Map<Long, SendOp> inFlight = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Completion> completions = new ConcurrentLinkedQueue<>();
    private final CompletionSink pollQueue = completions::add;

    /** Opaque grant bases: page-aligned, below 2^62 (base + any slice length stays far from wrapping). */
    private static final long OPAQUE_BASE_MASK = 0x3FFF_FFFF_FFFF_F000L;
    /** ... and never in the first 4 GiB, so a small forged address is never inside one. */
    private static final long OPAQUE_BASE_FLOOR = 0x1_0000_0000L;

    /** This channel's grant table: the only place its connection resolves an odd rkey. */
    private final Map<Integer, TcpGrant> grants = new ConcurrentHashMap<>();
    /** Next grant number; rkeys of revoked grants do not come back until it wraps. Guarded by the lock. */
    private int nextGrant;
    /** Bytes this side's completed requests moved, for {@link #info()}. */
    private final LongAdder bytesWritten = new LongAdder();
    private final LongAdder bytesRead = new LongAdder();

    TcpChannel(TcpTransport transport, long id, byte[] key, ChannelOptions options) {
        this.transport = transport;
        this.id = id;
        this.key = key;
        this.options = options;
        this.localEndpoint = new EndpointInfo.Tcp(transport.agentAddress(), id, key);
        this.self = new PeerIdentity(transport.agentAddress(), id);
        this.nextGrant = transport.random().nextInt();
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
        return new ChannelInfo(id, state(), peerText, grants.size(), bytesWritten.sum(), bytesRead.sum());
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
        if (!(remote instanceof EndpointInfo.Tcp target)) {
            throw new TransportException(TransportError.INVALID_ARGUMENT,
                    "the TCP transport connects only to EndpointInfo.Tcp, got " + remote);
        }
        PeerIdentity wanted = new PeerIdentity(target.address(), target.channelId());
        if (wanted.equals(self)) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "a channel cannot connect to itself");
        }
        lock.lock();
        try {
            switch (phase) {
                case CONNECTED -> {
                    // the peer dialed us first: fine if the control plane names that same peer
                    if (wanted.equals(peer) && remoteEndpoint == null) {
                        remoteEndpoint = target;
                        return;
                    }
                    throw new TransportException(TransportError.WRONG_STATE,
                            "channel " + id + " is already connected to " + peer);
                }
                case INIT -> {
                    phase = Phase.DIALING;
                    dialTarget = wanted;
                }
                default -> throw new TransportException(TransportError.WRONG_STATE,
                        "channel " + id + " cannot connect in state " + phase);
            }
        } finally {
            lock.unlock();
        }

        long deadline = System.nanoTime() + options.connectTimeout().toNanos();
        MemoryAgent.DialResult result;
        try {
            result = transport.agent().dial(target, self, deadline);
        } catch (TransportException e) {
            lock.lock();
            try {
                if (phase == Phase.DIALING) {
                    phase = Phase.INIT; // a refused connect changes nothing
                    dialTarget = null;
                }
                changed.signalAll();
            } finally {
                lock.unlock();
            }
            throw e;
        }

        if (result.socket() != null) {
            TcpConnection started = null;
            lock.lock();
            try {
                if (phase == Phase.DIALING) {
                    started = attachLocked(result.socket(), wanted);
                    remoteEndpoint = target;
                }
            } finally {
                lock.unlock();
            }
            if (started == null) {
                TcpTransport.closeQuietly(result.socket());
                throw new TransportException(TransportError.WRONG_STATE,
                        "channel " + id + " left INIT while connecting (now " + phase + ")");
            }
            started.start();
            return;
        }

        // crossed dials: the peer sorts lower, its dial to us wins; wait for it to arrive
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
            throw new TransportException(TransportError.WRONG_STATE,
                    "channel " + id + " left INIT while connecting (now " + phase + ")");
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
        if (region == null || access == null) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "region and access are required");
        }
        if (!(region instanceof TcpRegion r) || r.transport() != transport) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "region " + region
                    + " is not registered with this TCP transport");
        }
        if (access.isEmpty() || access.contains(Access.LOCAL_WRITE)) {
            throw new TransportException(TransportError.INVALID_ARGUMENT,
                    "a grant allows REMOTE_READ and/or REMOTE_WRITE, nothing else; got " + access);
        }
        if (access.contains(Access.REMOTE_WRITE) && !r.allows(Access.LOCAL_WRITE)) {
            throw new TransportException(TransportError.INVALID_ARGUMENT,
                    "REMOTE_WRITE needs a region registered with LOCAL_WRITE, as a verbs memory window does");
        }
        if (length <= 0 || offset < 0 || offset > r.length() - length) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "slice [" + offset + ", +" + length
                    + ") is empty or outside the region's " + r.length() + " bytes");
        }
        TcpGrant g;
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
            if (!r.isOpen()) {
                throw new TransportException(TransportError.CLOSED, "region " + r + " is closed");
            }
            int max = transport.settings().limits().maxGrantsPerChannel();
            if (grants.size() >= max) {
                throw new TransportException(TransportError.RESOURCE_EXHAUSTED, "channel " + id + " holds "
                        + "max.grants.per.channel (" + max + ") grants");
            }
            int rkey;
            do {
                rkey = (nextGrant++ << 1) | 1;
            } while (grants.containsKey(rkey));
            long real = r.address() + offset;
            long base = real;
            while (opaque && base == real) {
                base = (transport.random().nextLong() & OPAQUE_BASE_MASK) | OPAQUE_BASE_FLOOR;
            }
            g = new TcpGrant(this, r, offset, length, access, rkey, base);
            grants.put(rkey, g);
        } finally {
            lock.unlock();
        }
        return g;
    }

    /** The live grant of this channel with {@code rkey}, or null. Reader thread. */
    TcpGrant grantByRkey(int rkey) {
        return grants.get(rkey);
    }

    /** Called by {@link TcpGrant#revoke()} once, as soon as the grant refuses new leases. */
    void forgetGrant(TcpGrant grant) {
        grants.remove(grant.rkey(), grant);
    }

    /** Grants in the table now; for tests. */
    int grantCount() {
        return grants.size();
    }

    /** Revokes every grant; called once the connection's threads are gone (reset, close). */
    private void revokeAllGrants() {
        for (TcpGrant g : List.copyOf(grants.values())) {
            g.revoke();
        }
    }

    /** Cuts the current connection, if any, saying why in the log. */
    void abortConnection(EndCause cause, String why) {
        TcpConnection c = connection;
        if (c != null) {
            TcpTransport.LOG.warn("channel {}: cutting the connection to {}: {}", id, c.peer(), why);
            c.abort(cause);
        }
    }

    // ------------------------------------------------------------------ posting

    @Override
    public void post(WorkRequest request) throws TransportException {
        checkShape(request);
        List<Runnable> deliveries = new ArrayList<>(1);
        TcpConnection toAbort;
        lock.lock();
        try {
            checkPostable(request.opcode() == Opcode.RECV ? 0 : 1, request.opcode() == Opcode.RECV ? 1 : 0);
            toAbort = postLocked(request, pollQueue, deliveries);
        } finally {
            lock.unlock();
        }
        finishPost(deliveries, toAbort);
    }

    @Override
    public int poll(Completion[] out) {
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

    @Override
    public CompletableFuture<BatchResult> submit(List<WorkRequest> requests, Duration timeout) {
        try {
            if (requests == null || timeout == null) {
                throw new TransportException(TransportError.INVALID_ARGUMENT, "requests and timeout are required");
            }
            if (timeout.isNegative() || timeout.isZero()) {
                throw new TransportException(TransportError.INVALID_ARGUMENT, "timeout must be positive: " + timeout);
            }
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
            lock.lock();
            try {
                checkPostable(sends, signaled.size() - sends);
                postedIn = epoch;
                openBatches.add(batch);
                batch.future().whenComplete((r, e) -> openBatches.remove(batch));
                for (int i = 0; i < signaled.size(); i++) {
                    TcpConnection a = postLocked(signaled.get(i), batch.slot(i), deliveries);
                    toAbort = toAbort != null ? toAbort : a;
                }
            } finally {
                lock.unlock();
            }
            batch.deadline(transport.schedule(() -> batch.expire(() -> enterError(postedIn, EndCause.LOCAL_ERROR,
                    "batch missed its deadline of " + timeout)), timeout));
            finishPost(deliveries, toAbort);
            return batch.future();
        } catch (TransportException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Refusals that need no state: SGE count, foreign or closed-over regions. */
    private void checkShape(WorkRequest request) throws TransportException {
        if (request == null) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "request is null");
        }
        if (request.sgList().size() > options.maxSge()) {
            throw new TransportException(TransportError.INVALID_ARGUMENT, "request " + request.wrId() + " has "
                    + request.sgList().size() + " scatter-gather entries, the channel allows " + options.maxSge());
        }
        for (ScatterGatherEntry e : request.sgList()) {
            MemoryRegion r = e.region();
            if (!(r instanceof TcpRegion tr) || tr.transport() != transport) {
                throw new TransportException(TransportError.INVALID_ARGUMENT, "request " + request.wrId()
                        + " names a region of another transport: " + r);
            }
        }
    }

    /** Refusals that depend on state: closed, not connected, queue full. Nothing is queued if one applies. */
    private void checkPostable(int sends, int recvs) throws TransportException {
        Phase p = phase;
        if (p == Phase.CLOSED) {
            throw new TransportException(TransportError.CLOSED, "channel " + id + " is closed");
        }
        if (sends > 0 && (p == Phase.INIT || p == Phase.DIALING)) {
            throw new TransportException(TransportError.WRONG_STATE,
                    "channel " + id + " is not connected: only receives may be posted before connect");
        }
        if (sendQueue.size() + sends > options.sendQueueDepth()) {
            throw new TransportException(TransportError.RESOURCE_EXHAUSTED, "send queue of channel " + id
                    + " holds " + sendQueue.size() + " of " + options.sendQueueDepth() + "; " + sends + " more do not fit");
        }
        int posted = recvQueue.size() + (activeRecv == null ? 0 : 1);
        if (posted + recvs > options.recvQueueDepth()) {
            throw new TransportException(TransportError.RESOURCE_EXHAUSTED, "receive queue of channel " + id
                    + " holds " + posted + " of " + options.recvQueueDepth() + "; " + recvs + " more do not fit");
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
            if (phase == Phase.ERROR) {
                deliveries.add(flushRecv(recv));
                return null;
            }
            if (!localOk) {
                phase = Phase.ERROR;
                deliveries.add(deliverRecv(recv, new Completion(request.wrId(), WcStatus.LOC_PROT_ERR,
                        WcOpcode.RECV, 0, false, 0, EndCause.LOCAL_ERROR.vendorCode())));
                return errorLocked(EndCause.LOCAL_ERROR, deliveries);
            }
            recvQueue.add(recv);
            changed.signalAll();
            return null;
        }
        SendOp op = new SendOp(nextSeq++, request, sink);
        sendQueue.add(op);
        if (phase == Phase.ERROR) {
            op.done = true;
            op.status = WcStatus.WR_FLUSH_ERR;
            collectDeliverable(deliveries);
            return null;
        }
        if (!localOk) {
            phase = Phase.ERROR;
            op.done = true;
            op.status = WcStatus.LOC_PROT_ERR;
            op.vendorError = EndCause.LOCAL_ERROR.vendorCode();
            TcpConnection c = errorLocked(EndCause.LOCAL_ERROR, deliveries);
            collectDeliverable(deliveries);
            return c;
        }
        TcpConnection via = connection;
        op.via = via;
        inFlight.put(op.seq, op);
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

    private void finishPost(List<Runnable> deliveries, TcpConnection toAbort) {
        if (toAbort != null) {
            toAbort.abort(EndCause.LOCAL_ERROR);
        }
        deliveries.forEach(Runnable::run);
    }

    // ------------------------------------------------------------------ errors and completion

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
    private TcpConnection errorLocked(EndCause cause, List<Runnable> deliveries) {
        dialTarget = null;
        changed.signalAll();
        if (connection != null) {
            return connection;
        }
        flushAllLocked(cause, deliveries);
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
        SendOp op = inFlight.get(seq);
        return op != null && op.via == from ? op : null;
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
            collectDeliverable(deliveries);
        } finally {
            lock.unlock();
        }
        deliveries.forEach(Runnable::run);
    }

    /** Moves every finished request at the head of the send queue out, in order. */
    private void collectDeliverable(List<Runnable> deliveries) {
        while (!sendQueue.isEmpty() && sendQueue.peekFirst().done) {
            SendOp op = sendQueue.pollFirst();
            inFlight.remove(op.seq);
            Completion c = op.completion();
            countCompletion(op, c);
            if (c != null) {
                deliveries.add(() -> op.sink.accept(c));
            }
        }
    }

    private void countCompletion(SendOp op, Completion c) {
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
    private void flushAllLocked(EndCause cause, List<Runnable> deliveries) {
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

    private Runnable flushRecv(RecvOp recv) {
        return deliverRecv(recv, Completion.failure(recv.request.wrId(), WcStatus.WR_FLUSH_ERR, WcOpcode.RECV));
    }

    private Runnable deliverRecv(RecvOp recv, Completion c) {
        transport.telemetry().increment(c.isSuccess() ? Counter.TRANSPORT_OPS_COMPLETED : Counter.TRANSPORT_OPS_FAILED);
        return () -> recv.sink.accept(c);
    }

    /**
     * Takes the oldest posted receive for a peer's SEND or WRITE_WITH_IMM, waiting up to {@code wait} for one
     * (receiver not ready). Null if none came or the channel failed. Reader thread.
     */
    RecvOp takeRecv(TcpConnection from, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        lock.lock();
        try {
            while (recvQueue.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || phase != Phase.CONNECTED || from != connection) {
                    return null;
                }
                changed.awaitNanos(left);
            }
            if (phase != Phase.CONNECTED || from != connection) {
                return null;
            }
            activeRecv = recvQueue.pollFirst();
            return activeRecv;
        } finally {
            lock.unlock();
        }
    }

    /** Ends the receive taken by {@link #takeRecv}; a failure puts the channel in ERROR first. Reader thread. */
    void completeRecv(TcpConnection from, RecvOp recv, Completion c) {
        Runnable delivery;
        lock.lock();
        try {
            if (activeRecv != recv || from != connection) {
                return; // flushed meanwhile
            }
            activeRecv = null;
            if (!c.isSuccess() && phase != Phase.CLOSED) {
                phase = Phase.ERROR;
                changed.signalAll();
            }
            delivery = deliverRecv(recv, c);
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
            flushAllLocked(cause, deliveries);
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
                flushAllLocked(EndCause.RESET, deliveries);
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
                flushAllLocked(EndCause.LOCAL_CLOSE, deliveries);
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
