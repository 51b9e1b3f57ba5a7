package org.objrdma.verbs.internal.transport;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.MemoryGrant;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.transport.common.TransportChecks;
import org.objrdma.verbs.LinkLayer;
import org.objrdma.verbs.internal.ffi.DataPath;
import org.objrdma.verbs.internal.ffi.Errno;
import org.objrdma.verbs.internal.ffi.IbvConstants;
import org.objrdma.verbs.internal.ffi.IbvLayouts;
import org.objrdma.verbs.internal.ffi.QpModifier;
import org.objrdma.verbs.internal.ffi.QpState;
import org.objrdma.verbs.internal.ffi.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An RC queue pair with its own completion queue.
 *
 * <p>Native memory: one shared arena per channel holds the {@code ibv_send_wr}, {@code ibv_recv_wr} and
 * {@code ibv_sge} arrays (one entry per queue slot, so a whole batch posts as one chain) and the
 * {@code ibv_wc} array that {@code poll_cq} fills. They are written in place for every request — nothing is
 * allocated per operation — and freed when the channel closes.
 *
 * <p>Work-request ids: the device sees a sequence number ({@code RECV_BIT} set for receives), never the
 * caller's id; the slot ring maps it back to the caller's id, opcode and length, and to the batch it
 * belongs to. RC completes each queue in order, so a send completion also retires the unsignaled requests
 * posted before it.
 *
 * <p>Reset: the same queue pair goes to ERR (the device flushes what it holds), its completions are drained,
 * then RESET (which drops anything the device still had, CQEs included; those requests are flushed here) and
 * INIT with the attributes of {@link VerbsTransport#openChannel}. The QPN and the initial PSN are kept, so
 * {@link #localEndpoint()} does not change and a peer that cached it connects again with it. (Its GID is the
 * source GID chosen at the last connect: on RoCE the one of the family the peer named, see {@code SourceGid}.) Reusing the PSN
 * is safe because the peer must reconnect too (its RTR sets the expected PSN anew) and because an RC packet of
 * the old connection cannot outlive the transport timeout; it is what the C core does (same QP, same PSN).
 * Each reset starts a new {@code epoch}; a batch deadline from an earlier epoch does not touch the queue pair.
 *
 * <p>Locks: {@code postLock} serialises posting and state changes (post, submit, connect, reset, close);
 * {@code cqLock} serialises reading the completion queue ({@code poll}, the poller, close). Neither is held
 * while a batch future completes, so callbacks may use the channel.
 */
final class VerbsChannel implements Channel {
    private static final Logger LOG = LoggerFactory.getLogger(VerbsChannel.class);

    private static final long RECV_BIT = 1L << 63;
    /** Completions one {@code poll_cq} call may return. */
    static final int WC_BATCH = 32;
    /** How long close waits for the device to flush what is in flight before it flushes the rest itself. */
    static final long FLUSH_WAIT_NANOS = 2_000_000_000L;

    private static final long SEND_WR_SIZE = IbvLayouts.IBV_SEND_WR.byteSize();
    private static final long WR_ID = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "wr_id");
    private static final long WR_NEXT = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "next");
    private static final long WR_SG_LIST = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "sg_list");
    private static final long WR_NUM_SGE = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "num_sge");
    private static final long WR_OPCODE = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "opcode");
    private static final long WR_SEND_FLAGS = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "send_flags");
    private static final long WR_IMM_DATA = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "imm_data");
    private static final long WR_REMOTE_ADDR = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "wr.rdma.remote_addr");
    private static final long WR_RKEY = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "wr.rdma.rkey");
    private static final long WR_INVALIDATE_RKEY = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "invalidate_rkey");
    private static final long WR_BIND_MW = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "bind_mw.mw");
    private static final long WR_BIND_RKEY = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "bind_mw.rkey");
    private static final long WR_BIND_MR = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "bind_mw.bind_info.mr");
    private static final long WR_BIND_ADDR = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "bind_mw.bind_info.addr");
    private static final long WR_BIND_LENGTH = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "bind_mw.bind_info.length");
    private static final long WR_BIND_ACCESS =
            IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "bind_mw.bind_info.mw_access_flags");

    private static final long RECV_WR_SIZE = IbvLayouts.IBV_RECV_WR.byteSize();
    private static final long RWR_ID = IbvLayouts.offset(IbvLayouts.IBV_RECV_WR, "wr_id");
    private static final long RWR_NEXT = IbvLayouts.offset(IbvLayouts.IBV_RECV_WR, "next");
    private static final long RWR_SG_LIST = IbvLayouts.offset(IbvLayouts.IBV_RECV_WR, "sg_list");
    private static final long RWR_NUM_SGE = IbvLayouts.offset(IbvLayouts.IBV_RECV_WR, "num_sge");

    private static final long SGE_SIZE = IbvLayouts.IBV_SGE.byteSize();
    private static final long SGE_ADDR = IbvLayouts.offset(IbvLayouts.IBV_SGE, "addr");
    private static final long SGE_LENGTH = IbvLayouts.offset(IbvLayouts.IBV_SGE, "length");
    private static final long SGE_LKEY = IbvLayouts.offset(IbvLayouts.IBV_SGE, "lkey");

    private static final long WC_SIZE = IbvLayouts.IBV_WC.byteSize();
    private static final long WC_WR_ID = IbvLayouts.offset(IbvLayouts.IBV_WC, "wr_id");
    private static final long WC_STATUS = IbvLayouts.offset(IbvLayouts.IBV_WC, "status");
    private static final long WC_OPCODE = IbvLayouts.offset(IbvLayouts.IBV_WC, "opcode");
    private static final long WC_VENDOR_ERR = IbvLayouts.offset(IbvLayouts.IBV_WC, "vendor_err");
    private static final long WC_BYTE_LEN = IbvLayouts.offset(IbvLayouts.IBV_WC, "byte_len");
    private static final long WC_IMM_DATA = IbvLayouts.offset(IbvLayouts.IBV_WC, "imm_data");
    private static final long WC_FLAGS = IbvLayouts.offset(IbvLayouts.IBV_WC, "wc_flags");

    private final long id;
    private final VerbsTransport transport;
    private final DataPath dataPath;
    private final QpModifier modifier;
    private final Arena arena;
    private final MemorySegment cq;
    private final MemorySegment qp;
    private final int qpn;
    private final int psn;
    private final int maxSge;
    /** What a peer connects to; its GID becomes the source GID chosen at {@link #connect} (volatile: read unlocked). */
    private volatile EndpointInfo.Verbs local;

    /** How often {@link #state()} may ask the device; a syscall on a NIC, so not on every call. */
    static final long STATE_REFRESH_NANOS = 1_000_000;

    private volatile ChannelState state = ChannelState.INIT;
    private volatile long lastStateRefresh;
    private volatile EndpointInfo remote;

    private final ReentrantLock postLock = new ReentrantLock();
    private final MemorySegment sendWrs;
    private final MemorySegment sendSges;
    private final MemorySegment badSendWr;
    private final MemorySegment recvWrs;
    private final MemorySegment recvSges;
    private final MemorySegment badRecvWr;
    private final SlotRing sendRing;
    private final SlotRing recvRing;

    private final ReentrantLock cqLock = new ReentrantLock();
    private final MemorySegment wcs;
    /** Completions of posted requests read by the poller or by close, for the next {@link #poll}. */
    private final ArrayDeque<Completion> ready = new ArrayDeque<>();
    private boolean cqDestroyed;

    private final AtomicInteger batchOutstanding = new AtomicInteger();
    private final Set<PendingBatch> openBatches = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean qpClosed = new AtomicBoolean();
    /** Counts resets; guarded by postLock. */
    private long epoch;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ChannelGrants grants;

    /**
     * Takes ownership of {@code arena}, {@code cq} and {@code qp} (a queue pair already in INIT).
     */
    VerbsChannel(long id, VerbsTransport transport, ChannelOptions options, Arena arena, MemorySegment cq,
                 MemorySegment qp, int qpn, int psn) {
        this.id = id;
        this.transport = transport;
        this.dataPath = transport.dataPath();
        this.modifier = transport.modifier();
        this.arena = arena;
        this.cq = cq;
        this.qp = qp;
        this.qpn = qpn;
        this.psn = psn;
        this.maxSge = options.maxSge();
        DeviceInfo dev = transport.device();
        this.local = new EndpointInfo.Verbs(qpn, psn, dev.gid(), dev.portAttr().lid(), dev.port(), dev.activeMtu());

        int sendDepth = options.sendQueueDepth();
        int recvDepth = options.recvQueueDepth();
        this.sendWrs = arena.allocate(SEND_WR_SIZE * sendDepth, 8);
        this.sendSges = arena.allocate(SGE_SIZE * sendDepth * maxSge, 8);
        this.badSendWr = arena.allocate(8, 8);
        this.recvWrs = arena.allocate(RECV_WR_SIZE * recvDepth, 8);
        this.recvSges = arena.allocate(SGE_SIZE * recvDepth * maxSge, 8);
        this.badRecvWr = arena.allocate(8, 8);
        this.wcs = arena.allocate(WC_SIZE * WC_BATCH, 8);
        this.sendRing = new SlotRing(sendDepth);
        this.recvRing = new SlotRing(recvDepth);
        this.grants = new ChannelGrants(this, transport);
    }

    /** See {@link ChannelGrants}: a memory window bound to this queue pair, or a slice registration. */
    @Override
    public MemoryGrant grant(MemoryRegion region, long offset, long length, Set<Access> access)
            throws TransportException {
        if (closed.get() || qpClosed.get()) {
            throw new TransportException(TransportError.CLOSED, "channel " + id + " is closed");
        }
        return grants.grant(region, offset, length, access);
    }

    /**
     * This channel as an operator sees it now: the peer is its queue pair number, LID and GID, and bytes are
     * not counted per queue pair (-1).
     */
    org.objrdma.api.transport.ChannelInfo info() {
        String peer = remoteEndpoint() instanceof EndpointInfo.Verbs v
                ? "qpn " + v.qpn() + " lid " + v.lid() + " gid " + v.gid() : "";
        return new org.objrdma.api.transport.ChannelInfo(id(), state(), peer, grants.liveCount(), -1, -1);
    }

    /** Grants alive now; for tests. */
    int grantCount() {
        return grants.liveCount();
    }

    /**
     * Per-queue bookkeeping: slot {@code seq % capacity} describes the request with sequence number
     * {@code seq}. The poster writes a slot and then publishes it by advancing {@code head} (volatile) before
     * the post; the completion side reads {@code head} first, so it sees the slot. {@code tail} is advanced by
     * the completion side only.
     */
    static final class SlotRing {
        final int capacity;
        final long[] userWrId;
        final Opcode[] opcode;
        final boolean[] signaled;
        final long[] length;
        final PendingBatch[] batch;
        final int[] batchIndex;
        /** A memory-window request the channel posted for a grant: its completion goes here, not to the user. */
        final CompletableFuture<WcStatus>[] window;
        volatile long head;
        volatile long tail;

        SlotRing(int capacity) {
            this.capacity = capacity;
            userWrId = new long[capacity];
            opcode = new Opcode[capacity];
            signaled = new boolean[capacity];
            length = new long[capacity];
            batch = new PendingBatch[capacity];
            batchIndex = new int[capacity];
            @SuppressWarnings("unchecked")
            CompletableFuture<WcStatus>[] w = new CompletableFuture[capacity];
            window = w;
        }

        int index(long seq) {
            return (int) (seq % capacity);
        }

        int free() {
            return capacity - (int) (head - tail);
        }

        int outstanding() {
            return (int) (head - tail);
        }

        void set(int slot, WorkRequest r, boolean isSignaled, PendingBatch b, int bIndex) {
            userWrId[slot] = r.wrId();
            opcode[slot] = r.opcode();
            signaled[slot] = isSignaled;
            length[slot] = r.byteLength();
            batch[slot] = b;
            batchIndex[slot] = bIndex;
        }

        void clear(int slot) {
            batch[slot] = null;
            opcode[slot] = null;
            window[slot] = null;
        }
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
        return local;
    }

    @Override
    public EndpointInfo remoteEndpoint() {
        return remote;
    }

    /**
     * The channel's state. While CONNECTED it is refreshed from the device at most once per
     * {@link #STATE_REFRESH_NANOS}: a NIC moves the responder's queue pair to ERR on a remote access violation
     * without any completion on this side (only an async event), and {@code ibv_query_qp} shows it.
     */
    @Override
    public ChannelState state() {
        ChannelState s = state;
        if (s == ChannelState.CONNECTED) {
            long now = System.nanoTime();
            if (now - lastStateRefresh >= STATE_REFRESH_NANOS) {
                lastStateRefresh = now;
                s = refreshState();
            }
        }
        return s;
    }

    private ChannelState refreshState() {
        if (!postLock.tryLock()) {
            return state; // a post, connect or close is changing it right now
        }
        try {
            if (state == ChannelState.CONNECTED && !qpClosed.get()
                    && transport.library().queryQpState(qp) == QpState.ERR) {
                state = ChannelState.ERROR;
            }
        } catch (VerbsException e) {
            LOG.debug("channel {}: ibv_query_qp failed: {}", id, e.getMessage());
        } finally {
            postLock.unlock();
        }
        return state;
    }

    int qpNum() {
        return qpn;
    }

    /** The native {@code ibv_qp*}; for tests that check the device's view of the state. */
    MemorySegment queuePair() {
        return qp;
    }

    // ---- connect ----------------------------------------------------------------------------------------

    /**
     * INIT → RTR → RTS towards {@code remote}. Verbs needs no round trip here: the peer's numbers come from
     * the control plane, so {@code connectTimeout} is not used. If RTR → RTS fails after RTR succeeded, the
     * queue pair cannot go back to INIT without losing its posted receives, so it is moved to ERR (the
     * receives flush) and the channel is in ERROR.
     */
    @Override
    public void connect(EndpointInfo remote) throws TransportException {
        if (!(remote instanceof EndpointInfo.Verbs peer)) {
            throw new TransportException(TransportError.INVALID_ARGUMENT,
                    "the verbs transport connects to verbs endpoints only, got " + remote);
        }
        DeviceInfo dev = transport.device();
        boolean global = dev.linkLayer() == LinkLayer.ETHERNET || peer.lid() == 0;
        if (global && peer.gid().equals(Gid.ZERO)) {
            throw new TransportException(TransportError.INVALID_ARGUMENT,
                    "the peer endpoint has neither a LID nor a GID: " + peer);
        }
        postLock.lock();
        try {
            if (state != ChannelState.INIT) {
                throw new TransportException(TransportError.WRONG_STATE,
                        "channel " + id + " is " + state + "; connect needs INIT");
            }
            Mtu mtu = dev.activeMtu().code() <= peer.mtu().code() ? dev.activeMtu() : peer.mtu();
            // RoCE: the source GID of the family (v1 link-local / v2 IPv4-mapped) the peer's GID names
            int sgidIndex = global ? dev.sourceGidIndexFor(peer.gid()) : dev.gidIndex();
            int rc = modifier.toRtr(qp, new QpModifier.RtrParams(peer.qpn(), peer.psn(), mtu.code(), peer.gid(),
                    peer.lid(), global, sgidIndex, dev.port(),
                    clampRdAtomic(dev.device().maxQpRdAtom()), 12));
            if (rc != 0) {
                throw new TransportException(TransportError.CONNECT_FAILED,
                        "INIT→RTR towards qpn " + peer.qpn() + " refused: " + Errno.describe(rc));
            }
            rc = modifier.toRts(qp, new QpModifier.RtsParams(psn, 14, 7, 7,
                    clampRdAtomic(dev.device().maxQpInitRdAtom())));
            if (rc != 0) {
                modifier.toError(qp);
                state = ChannelState.ERROR;
                throw new TransportException(TransportError.CONNECT_FAILED,
                        "RTR→RTS refused: " + Errno.describe(rc) + "; the channel is in ERROR");
            }
            this.remote = peer;
            Gid source = dev.gidAt(sgidIndex);
            if (!source.equals(local.gid()) && !source.equals(Gid.ZERO)) {
                // the peer must address us by the GID our packets come from
                local = new EndpointInfo.Verbs(local.qpn(), local.psn(), source, local.lid(), local.port(), local.mtu());
            }
            state = ChannelState.CONNECTED;
        } finally {
            postLock.unlock();
        }
    }

    private static int clampRdAtomic(int deviceMax) {
        return Math.max(1, Math.min(16, deviceMax));
    }

    // ---- post ---------------------------------------------------------------------------------------------

    @Override
    public void post(WorkRequest request) throws TransportException {
        checkEntries(request);
        postLock.lock();
        try {
            checkState(request.opcode());
            if (request.opcode() == Opcode.RECV) {
                postRecvLocked(request);
            } else {
                postSendLocked(request);
            }
        } finally {
            postLock.unlock();
        }
    }

    private void postSendLocked(WorkRequest request) throws TransportException {
        SlotRing ring = sendRing;
        if (ring.free() < 1) {
            throw queueFull("send", ring);
        }
        long seq = ring.head;
        int slot = ring.index(seq);
        ring.set(slot, request, request.signaled(), null, 0);
        fillSend(0, seq, request, request.signaled(), 0);
        ring.head = seq + 1;
        int rc = dataPath.postSend(qp, sendWrs, badSendWr);
        if (rc != 0) {
            ring.head = seq;
            ring.clear(slot);
            throw postRefused("ibv_post_send", rc);
        }
    }

    private void postRecvLocked(WorkRequest request) throws TransportException {
        SlotRing ring = recvRing;
        if (ring.free() < 1) {
            throw queueFull("receive", ring);
        }
        long seq = ring.head;
        int slot = ring.index(seq);
        ring.set(slot, request, true, null, 0);
        fillRecv(0, seq, request, 0);
        ring.head = seq + 1;
        int rc = dataPath.postRecv(qp, recvWrs, badRecvWr);
        if (rc != 0) {
            ring.head = seq;
            ring.clear(slot);
            throw postRefused("ibv_post_recv", rc);
        }
    }

    /** Writes send WR {@code k} (and its SGEs) in place; {@code next} is the next WR's address or 0. */
    private void fillSend(int k, long seq, WorkRequest r, boolean signaled, long next) {
        long wr = k * SEND_WR_SIZE;
        long sgeBase = (long) k * maxSge * SGE_SIZE;
        int n = fillSges(sendSges, sgeBase, r.sgList());
        MemorySegment w = sendWrs;
        // pointers are written as 64-bit integers: no MemorySegment per pointer (8-byte pointers are checked at activation)
        w.set(JAVA_LONG, wr + WR_ID, seq);
        w.set(JAVA_LONG, wr + WR_NEXT, next);
        w.set(JAVA_LONG, wr + WR_SG_LIST, n == 0 ? 0 : sendSges.address() + sgeBase);
        w.set(JAVA_INT, wr + WR_NUM_SGE, n);
        w.set(JAVA_INT, wr + WR_OPCODE, r.opcode().verbsOpcode());
        w.set(JAVA_INT, wr + WR_SEND_FLAGS, signaled ? IbvConstants.IBV_SEND_SIGNALED : 0);
        // imm_data is __be32: the value the caller gave travels in network order and comes back unchanged
        w.set(JAVA_INT, wr + WR_IMM_DATA, r.opcode().hasImmediate() ? toNetworkOrder(r.immediate()) : 0);
        w.set(JAVA_LONG, wr + WR_REMOTE_ADDR, r.remoteAddress());
        w.set(JAVA_INT, wr + WR_RKEY, r.rkey());
    }

    private void fillRecv(int k, long seq, WorkRequest r, long next) {
        long wr = k * RECV_WR_SIZE;
        long sgeBase = (long) k * maxSge * SGE_SIZE;
        int n = fillSges(recvSges, sgeBase, r.sgList());
        MemorySegment w = recvWrs;
        w.set(JAVA_LONG, wr + RWR_ID, seq | RECV_BIT);
        w.set(JAVA_LONG, wr + RWR_NEXT, next);
        w.set(JAVA_LONG, wr + RWR_SG_LIST, n == 0 ? 0 : recvSges.address() + sgeBase);
        w.set(JAVA_INT, wr + RWR_NUM_SGE, n);
    }

    private static int fillSges(MemorySegment sges, long base, List<ScatterGatherEntry> entries) {
        int n = entries.size();
        for (int i = 0; i < n; i++) {
            ScatterGatherEntry e = entries.get(i);
            long s = base + i * SGE_SIZE;
            sges.set(JAVA_LONG, s + SGE_ADDR, e.address());
            sges.set(JAVA_INT, s + SGE_LENGTH, e.length());
            sges.set(JAVA_INT, s + SGE_LKEY, e.lkey());
        }
        return n;
    }

    private static int toNetworkOrder(int v) {
        return java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN ? Integer.reverseBytes(v) : v;
    }

    /** Checks what can be checked without the lock: entry count, and that every region is ours and open. */
    private void checkEntries(WorkRequest request) throws TransportException {
        TransportChecks.checkRequest(request, maxSge, r -> r instanceof VerbsMemoryRegion v && v.transport() == transport,
                transport.name());
        for (ScatterGatherEntry e : request.sgList()) {
            VerbsMemoryRegion region = (VerbsMemoryRegion) e.region();
            if (!region.isOpen()) {
                throw new TransportException(TransportError.CLOSED, "region " + region + " is closed");
            }
        }
    }

    /** Called with postLock held. */
    private void checkState(Opcode opcode) throws TransportException {
        TransportChecks.checkPostable(state, id, opcode);
        // ERROR accepts work: the queue pair flushes it with WR_FLUSH_ERR, as the contract promises
    }

    private TransportException queueFull(String queue, SlotRing ring) {
        return new TransportException(TransportError.RESOURCE_EXHAUSTED, "the " + queue + " queue of channel " + id
                + " is full (" + ring.capacity + " requests outstanding; an unsignaled request is retired only by a"
                + " later signaled one, so signal at least every " + ring.capacity + "th)");
    }

    private TransportException postRefused(String verb, int rc) {
        TransportError error = switch (rc) {
            case Errno.ENOMEM, Errno.EAGAIN -> TransportError.RESOURCE_EXHAUSTED;
            case Errno.EINVAL -> TransportError.INVALID_ARGUMENT;
            default -> TransportError.IO;
        };
        return new TransportException(error, verb + " on channel " + id + " refused the request: " + Errno.describe(rc));
    }

    // ---- memory-window work for grants ---------------------------------------------------------------

    /**
     * A memory-window work request the channel posts for {@link ChannelGrants}: a bind of {@code mw} with the
     * new {@code rkey} over {@code [address, address + length)} of {@code mr}, or a local invalidate of
     * {@code rkey} ({@code mw} null).
     */
    record WindowWork(MemorySegment mw, int rkey, MemorySegment mr, long address, long length, int access) {
        static WindowWork bind(MemorySegment mw, int rkey, MemorySegment mr, long address, long length, int access) {
            return new WindowWork(mw, rkey, mr, address, length, access);
        }

        static WindowWork invalidate(int rkey) {
            return new WindowWork(null, rkey, null, 0, 0, 0);
        }
    }

    /**
     * Posts {@code work} signaled on this queue pair and waits up to {@code timeoutNanos} for its completion,
     * reading the completion queue itself if no one else is (the caller's own completions met on the way wait
     * in {@link #ready}, in order). Returns the status, WR_FLUSH_ERR at once if the channel is in ERROR, or null
     * if nothing completed in time.
     *
     * @throws TransportException CLOSED, WRONG_STATE (not connected: a bind needs RTS), RESOURCE_EXHAUSTED
     *         (send queue full), or the post's refusal
     */
    WcStatus postWindowWork(WindowWork work, long timeoutNanos) throws TransportException {
        CompletableFuture<WcStatus> done = new CompletableFuture<>();
        postLock.lock();
        try {
            ChannelState s = state;
            if (s == ChannelState.CLOSED || qpClosed.get()) {
                throw new TransportException(TransportError.CLOSED, "channel " + id + " is closed");
            }
            if (s == ChannelState.ERROR) {
                return WcStatus.WR_FLUSH_ERR;
            }
            if (s != ChannelState.CONNECTED) {
                throw new TransportException(TransportError.WRONG_STATE, "channel " + id + " is " + s
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
            fillWindowWork(seq, work);
            ring.head = seq + 1;
            int rc = dataPath.postSend(qp, sendWrs, badSendWr);
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
            if (cqLock.tryLock()) {
                try {
                    if (!cqDestroyed) {
                        route(dataPath.pollCq(cq, WC_BATCH, wcs), null, 0);
                    }
                } finally {
                    cqLock.unlock();
                }
            }
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

    private void fillWindowWork(long seq, WindowWork work) {
        MemorySegment w = sendWrs;
        w.set(JAVA_LONG, WR_ID, seq);
        w.set(JAVA_LONG, WR_NEXT, 0);
        w.set(JAVA_LONG, WR_SG_LIST, 0);
        w.set(JAVA_INT, WR_NUM_SGE, 0);
        w.set(JAVA_INT, WR_SEND_FLAGS, IbvConstants.IBV_SEND_SIGNALED);
        if (work.mw() == null) {
            w.set(JAVA_INT, WR_OPCODE, IbvConstants.IBV_WR_LOCAL_INV);
            w.set(JAVA_INT, WR_INVALIDATE_RKEY, work.rkey());
        } else {
            w.set(JAVA_INT, WR_OPCODE, IbvConstants.IBV_WR_BIND_MW);
            w.set(JAVA_INT, WR_IMM_DATA, 0);
            w.set(JAVA_LONG, WR_BIND_MW, work.mw().address());
            w.set(JAVA_INT, WR_BIND_RKEY, work.rkey());
            w.set(JAVA_LONG, WR_BIND_MR, work.mr().address());
            w.set(JAVA_LONG, WR_BIND_ADDR, work.address());
            w.set(JAVA_LONG, WR_BIND_LENGTH, work.length());
            w.set(JAVA_INT, WR_BIND_ACCESS, work.access());
        }
    }

    // ---- submit -------------------------------------------------------------------------------------------

    @Override
    public CompletableFuture<BatchResult> submit(List<WorkRequest> requests, Duration timeout) {
        try {
            return submitOrThrow(requests, timeout);
        } catch (TransportException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<BatchResult> submitOrThrow(List<WorkRequest> requests, Duration timeout)
            throws TransportException {
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
        long timeoutNanos = timeout.compareTo(Duration.ofDays(365)) > 0 ? Duration.ofDays(365).toNanos() : timeout.toNanos();
        PendingBatch batch = new PendingBatch(this, ids, ops, System.nanoTime() + timeoutNanos);

        postLock.lock();
        try {
            for (int i = 0; i < n; i++) {
                checkState(ops[i]);
            }
            if (sendRing.free() < sends) {
                throw queueFull("send", sendRing);
            }
            if (recvRing.free() < recvs) {
                throw queueFull("receive", recvRing);
            }
            int[] sendRequest = new int[sends];
            int[] recvRequest = new int[recvs];
            long sendStart = sendRing.head;
            long recvStart = recvRing.head;
            int si = 0;
            int ri = 0;
            for (int i = 0; i < n; i++) {
                WorkRequest r = requests.get(i);
                if (ops[i] == Opcode.RECV) {
                    long seq = recvStart + ri;
                    recvRing.set(recvRing.index(seq), r, true, batch, i);
                    fillRecv(ri, seq, r, ri + 1 < recvs ? recvWrs.address() + (ri + 1) * RECV_WR_SIZE : 0);
                    recvRequest[ri++] = i;
                } else {
                    long seq = sendStart + si;
                    sendRing.set(sendRing.index(seq), r, true, batch, i);
                    fillSend(si, seq, r, true, si + 1 < sends ? sendWrs.address() + (si + 1) * SEND_WR_SIZE : 0);
                    sendRequest[si++] = i;
                }
            }
            batchOutstanding.addAndGet(n);
            batch.epoch = epoch;
            openBatches.add(batch);
            transport.poller().track(batch);

            // receives first, so a SEND in the same batch to ourselves finds them
            int postedRecvs = recvs;
            int rcRecv = 0;
            if (recvs > 0) {
                recvRing.head = recvStart + recvs;
                rcRecv = dataPath.postRecv(qp, recvWrs, badRecvWr);
                if (rcRecv != 0) {
                    postedRecvs = failedIndex(badRecvWr, recvWrs, RECV_WR_SIZE, recvs);
                    unwind(recvRing, recvStart + postedRecvs, recvStart + recvs);
                }
            }
            int postedSends = 0;
            int rcSend = 0;
            if (sends > 0 && postedRecvs == recvs) {
                sendRing.head = sendStart + sends;
                rcSend = dataPath.postSend(qp, sendWrs, badSendWr);
                postedSends = sends;
                if (rcSend != 0) {
                    postedSends = failedIndex(badSendWr, sendWrs, SEND_WR_SIZE, sends);
                    unwind(sendRing, sendStart + postedSends, sendStart + sends);
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
            batchOutstanding.addAndGet(-unposted);
            if (unposted == n) {
                openBatches.remove(batch);
                transport.poller().untrack(batch);
                throw rcRecv != 0 ? postRefused("ibv_post_recv", rcRecv) : postRefused("ibv_post_send", rcSend);
            }
            // partly posted: what went out completes as usual, the rest failed locally
            LOG.warn("channel {}: only {} of {} requests of a batch were posted (recv rc {}, send rc {})",
                    id, n - unposted, n, Errno.describe(rcRecv), Errno.describe(rcSend));
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
        } finally {
            postLock.unlock();
        }
    }

    /** Index of the WR {@code *bad_wr} points at within a chain starting at {@code chain}. */
    private static int failedIndex(MemorySegment badWr, MemorySegment chain, long wrSize, int count) {
        long bad = badWr.get(JAVA_LONG, 0);
        long k = (bad - chain.address()) / wrSize;
        return k < 0 || k > count ? 0 : (int) k;
    }

    private static void unwind(SlotRing ring, long from, long to) {
        for (long s = from; s < to; s++) {
            ring.clear(ring.index(s));
        }
        ring.head = from;
    }

    // ---- completions ----------------------------------------------------------------------------------

    @Override
    public int poll(Completion[] out) {
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

    /** True while submitted requests are outstanding: the poller must read this channel's queue. */
    boolean hasBatchWork() {
        return batchOutstanding.get() > 0;
    }

    /** One poll by the poller thread; returns how many completions it read. */
    int pollFromPoller() {
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
     * Turns {@code got} work completions in {@link #wcs} into {@link Completion}s: batch ones to their batch,
     * posted ones into {@code out} from {@code pos} while it has room, then to {@link #ready}. Called with
     * cqLock held. Returns the next free position in {@code out}.
     */
    private int route(int got, Completion[] out, int pos) {
        if (got < 0) {
            LOG.error("channel {}: poll_cq failed ({}); the completion queue overran or the device failed",
                    id, Errno.describe(-got));
            markError();
            return pos;
        }
        Telemetry telemetry = transport.telemetry();
        for (int i = 0; i < got; i++) {
            long w = i * WC_SIZE;
            long nativeId = wcs.get(JAVA_LONG, w + WC_WR_ID);
            int status = wcs.get(JAVA_INT, w + WC_STATUS);
            boolean isRecv = (nativeId & RECV_BIT) != 0;
            long seq = nativeId & ~RECV_BIT;
            SlotRing ring = isRecv ? recvRing : sendRing;
            long tail = ring.tail;
            if (seq < tail || seq >= ring.head) {
                LOG.warn("channel {}: completion for unknown request {} (outstanding {}..{}) ignored",
                        id, seq, tail, ring.head);
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
                    markError();
                }
                windowWork.complete(wcStatus);
                continue;
            }
            Completion c;
            if (isRecv) {
                if (wcStatus.isSuccess()) {
                    WcOpcode op = WcOpcode.fromCode(wcs.get(JAVA_INT, w + WC_OPCODE));
                    boolean imm = (wcs.get(JAVA_INT, w + WC_FLAGS) & IbvConstants.IBV_WC_WITH_IMM) != 0;
                    c = new Completion(ring.userWrId[slot], wcStatus, op == null ? WcOpcode.RECV : op,
                            Integer.toUnsignedLong(wcs.get(JAVA_INT, w + WC_BYTE_LEN)), imm,
                            imm ? toNetworkOrder(wcs.get(JAVA_INT, w + WC_IMM_DATA)) : 0, 0);
                } else {
                    c = new Completion(ring.userWrId[slot], wcStatus, WcOpcode.RECV, 0, false, 0,
                            wcs.get(JAVA_INT, w + WC_VENDOR_ERR));
                }
            } else {
                WcOpcode op = WcOpcode.forRequest(ring.opcode[slot]);
                c = wcStatus.isSuccess()
                        ? new Completion(ring.userWrId[slot], wcStatus, op, ring.length[slot], false, 0, 0)
                        : new Completion(ring.userWrId[slot], wcStatus, op, 0, false, 0,
                        wcs.get(JAVA_INT, w + WC_VENDOR_ERR));
            }
            PendingBatch batch = ring.batch[slot];
            int batchIndex = ring.batchIndex[slot];
            ring.clear(slot);
            ring.tail = seq + 1;
            count(telemetry, c);
            if (!wcStatus.isSuccess()) {
                markError();
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

    /** An error completion: the queue pair is in ERR now; the channel says so unless it is closed. */
    private void markError() {
        ChannelState s = state;
        if (s == ChannelState.INIT || s == ChannelState.CONNECTED) {
            state = ChannelState.ERROR;
        }
    }

    /** A batch ended (finished, timed out or flushed): forget it. */
    void batchEnded(PendingBatch batch) {
        openBatches.remove(batch);
    }

    /**
     * The poller abandoned a batch of {@code batchEpoch} at its deadline: its requests may still be in flight,
     * so the queue pair goes to ERR (the device flushes them; their memory is safe to reuse once they are) and
     * the channel is in ERROR. A batch from before a reset changes nothing: the reset flushed it.
     */
    void failAfterTimeout(long batchEpoch) {
        postLock.lock();
        try {
            if (state != ChannelState.CLOSED && !qpClosed.get() && batchEpoch == epoch) {
                int rc = modifier.toError(qp);
                if (rc != 0) {
                    LOG.warn("channel {}: moving the queue pair to ERR after a batch timeout failed: {}",
                            id, Errno.describe(rc));
                }
                state = ChannelState.ERROR;
            }
        } finally {
            postLock.unlock();
        }
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
        if (state != ChannelState.INIT && !closed.get() && !qpClosed.get()) {
            grants.revokeAll(false); // the next connection may be to another peer
        }
        long startedIn;
        List<PendingBatch> outstanding;
        postLock.lock();
        try {
            if (closed.get() || qpClosed.get()) {
                throw new TransportException(TransportError.CLOSED, "channel " + id + " is closed");
            }
            if (state == ChannelState.INIT) {
                return List.of(); // nothing to undo: receives posted before connecting stay posted
            }
            startedIn = epoch;
            // batches open now: the drain below may finish some of them, and their futures then complete on the
            // poller thread; reset must wait for those too, not only for the ones still open at the end
            outstanding = new ArrayList<>(openBatches);
            state = ChannelState.ERROR;
            int rc = modifier.toError(qp);
            if (rc != 0) {
                throw new TransportException(TransportError.IO, "channel " + id
                        + ": moving the queue pair to ERR for a reset failed: " + Errno.describe(rc));
            }
        } finally {
            postLock.unlock();
        }
        // the device now completes everything it holds with WR_FLUSH_ERR: route that before RESET drops it
        drainDevice(System.nanoTime() + FLUSH_WAIT_NANOS);
        postLock.lock();
        try {
            if (qpClosed.get()) {
                throw new TransportException(TransportError.CLOSED,
                        "channel " + id + " was closed while resetting");
            }
            if (epoch != startedIn) {
                return List.of(); // a concurrent reset re-armed the queue pair; it completes the batches
            }
            int rc = modifier.toReset(qp);
            if (rc != 0) {
                throw new TransportException(TransportError.IO, "channel " + id + ": moving the queue pair to RESET"
                        + " failed: " + Errno.describe(rc) + "; the channel is in ERROR");
            }
            // RESET dropped what the device had not completed by the deadline, and its CQEs: flush it here
            cqLock.lock();
            try {
                flushRemaining(sendRing);
                flushRemaining(recvRing);
            } finally {
                cqLock.unlock();
            }
            rc = transport.toInit(qp);
            if (rc != 0) {
                modifier.toError(qp); // RESET accepts no sends; in ERR later work is flushed, as ERROR promises
                throw new TransportException(TransportError.IO, "channel " + id
                        + ": RESET→INIT refused: " + Errno.describe(rc) + "; the channel is in ERROR");
            }
            epoch++;
            remote = null;
            state = ChannelState.INIT;
            // submit adds under postLock: these all precede the reset
            java.util.Set<PendingBatch> all = new java.util.LinkedHashSet<>(outstanding);
            all.addAll(openBatches);
            return new ArrayList<>(all);
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

    /**
     * Routes the device's completions (to their batch or to {@link #ready}) until nothing is outstanding or
     * {@code deadline} passes. With the queue pair in ERR every posted request completes, except unsignaled
     * sends that had already succeeded; those are retired by the flush that follows.
     */
    private void drainDevice(long deadline) {
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

    // ---- close ------------------------------------------------------------------------------------------

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        // the read side of the transport's lifecycle lock: a transport close waits until this one is done
        transport.lifecycle().readLock().lock();
        try {
            closeQueuePair();
            closeCompletionQueue();
        } catch (RuntimeException e) {
            LOG.error("channel {}: failure while closing", id, e);
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
        if (!qpClosed.compareAndSet(false, true)) {
            return;
        }
        postLock.lock();
        try {
            state = ChannelState.CLOSED;
            int rc = modifier.toError(qp);
            if (rc != 0) {
                LOG.warn("channel {}: moving the queue pair to ERR at close failed: {}", id, Errno.describe(rc));
            }
        } finally {
            postLock.unlock();
        }
        drainDevice(System.nanoTime() + FLUSH_WAIT_NANOS);
        cqLock.lock();
        try {
            flushRemaining(sendRing);
            flushRemaining(recvRing);
        } finally {
            cqLock.unlock();
        }
        for (PendingBatch b : new ArrayList<>(openBatches)) {
            transport.poller().untrack(b);
            b.abandon(WcStatus.WR_FLUSH_ERR, false, () -> { });
        }
        int rc = transport.library().destroyQp(qp);
        transport.closeStep("qp " + qpn, rc);
    }

    /** Requests the device never completed: WR_FLUSH_ERR to their batch, or to {@link #ready}. cqLock held. */
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

    /** Second half of close: destroy the completion queue and free the channel's native memory. Idempotent. */
    void closeCompletionQueue() {
        cqLock.lock();
        try {
            if (cqDestroyed) {
                return;
            }
            cqDestroyed = true;
            int rc = transport.library().destroyCq(cq);
            transport.closeStep("cq of qp " + qpn, rc);
        } finally {
            cqLock.unlock();
        }
        postLock.lock();
        try {
            arena.close();
        } finally {
            postLock.unlock();
        }
    }

    @Override
    public String toString() {
        return "VerbsChannel[" + id + ", " + transport.name() + ", qpn " + qpn + ", " + state + "]";
    }
}
