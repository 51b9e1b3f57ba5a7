package org.objrdma.verbs.internal.transport;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.Mtu;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.verbs.LinkLayer;
import org.objrdma.verbs.internal.ffi.Errno;
import org.objrdma.verbs.internal.ffi.QpModifier;
import org.objrdma.verbs.internal.ffi.QpState;
import org.objrdma.verbs.internal.ffi.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The states of one RC queue pair and the channel state they show as: each transition (INIT → RTR → RTS at
 * connect; ERR after an error completion, a batch timeout or at close; ERR → RESET → INIT at reset) moves the
 * device's queue pair and the {@link ChannelState} together, with the reset {@linkplain #epoch() epoch}, the
 * peer, and the local endpoint (whose GID is the source GID chosen at connect).
 *
 * <p>{@link #lock} is the channel's post lock: it serialises posting and every transition. Methods named
 * {@code ...Locked} expect it held; the others take it themselves. State, peer and local endpoint are volatile
 * and read without it.
 */
final class QueuePairStates {
    private static final Logger LOG = LoggerFactory.getLogger(QueuePairStates.class);

    /** How often {@link #observed()} may ask the device; a syscall on a NIC, so not on every call. */
    static final long STATE_REFRESH_NANOS = 1_000_000;

    final ReentrantLock lock = new ReentrantLock();

    private final long channelId;
    private final VerbsTransport transport;
    private final QpModifier modifier;
    private final MemorySegment qp;
    private final int psn;
    private final AtomicBoolean qpClosed = new AtomicBoolean();
    private volatile ChannelState state = ChannelState.INIT;
    private volatile long lastStateRefresh;
    private volatile EndpointInfo remote;
    /** What a peer connects to; its GID becomes the source GID chosen at {@link #connect}. */
    private volatile EndpointInfo.Verbs local;
    /** Counts resets; guarded by {@link #lock}. */
    private long epoch;

    QueuePairStates(long channelId, VerbsTransport transport, MemorySegment qp, int qpn, int psn) {
        this.channelId = channelId;
        this.transport = transport;
        this.modifier = transport.modifier();
        this.qp = qp;
        this.psn = psn;
        DeviceInfo dev = transport.device();
        this.local = new EndpointInfo.Verbs(qpn, psn, dev.gid(), dev.portAttr().lid(), dev.port(), dev.activeMtu());
    }

    /** The state as last set here, without asking the device. */
    ChannelState current() {
        return state;
    }

    /**
     * The channel's state. While CONNECTED it is refreshed from the device at most once per
     * {@link #STATE_REFRESH_NANOS}: a NIC moves the responder's queue pair to ERR on a remote access violation
     * without any completion on this side (only an async event), and {@code ibv_query_qp} shows it.
     */
    ChannelState observed() {
        ChannelState s = state;
        if (s == ChannelState.CONNECTED) {
            long now = System.nanoTime();
            if (now - lastStateRefresh >= STATE_REFRESH_NANOS) {
                lastStateRefresh = now;
                s = refresh();
            }
        }
        return s;
    }

    private ChannelState refresh() {
        if (!lock.tryLock()) {
            return state; // a post, connect or close is changing it right now
        }
        try {
            if (state == ChannelState.CONNECTED && !qpClosed.get()
                    && transport.library().queryQpState(qp) == QpState.ERR) {
                state = ChannelState.ERROR;
            }
        } catch (VerbsException e) {
            LOG.debug("channel {}: ibv_query_qp failed: {}", channelId, e.getMessage());
        } finally {
            lock.unlock();
        }
        return state;
    }

    EndpointInfo remote() {
        return remote;
    }

    EndpointInfo.Verbs local() {
        return local;
    }

    /** The reset epoch; guarded by {@link #lock}. */
    long epochLocked() {
        return epoch;
    }

    /** True once close has begun taking the queue pair down. */
    boolean qpClosed() {
        return qpClosed.get();
    }

    /** An error completion: the queue pair is in ERR now; the channel says so unless it is closed. */
    void markError() {
        ChannelState s = state;
        if (s == ChannelState.INIT || s == ChannelState.CONNECTED) {
            state = ChannelState.ERROR;
        }
    }

    /**
     * INIT → RTR → RTS towards {@code peer}. If RTR → RTS fails after RTR succeeded, the queue pair cannot go
     * back to INIT without losing its posted receives, so it is moved to ERR (the receives flush) and the
     * channel is in ERROR.
     */
    void connect(EndpointInfo remote) throws TransportException {
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
        lock.lock();
        try {
            if (state != ChannelState.INIT) {
                throw new TransportException(TransportError.WRONG_STATE,
                        "channel " + channelId + " is " + state + "; connect needs INIT");
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
            lock.unlock();
        }
    }

    private static int clampRdAtomic(int deviceMax) {
        return Math.max(1, Math.min(16, deviceMax));
    }

    /**
     * A batch of {@code batchEpoch} was abandoned at its deadline: its requests may still be in flight, so the
     * queue pair goes to ERR (the device flushes them; their memory is safe to reuse once they are) and the
     * channel is in ERROR. A batch from before a reset changes nothing: the reset flushed it.
     */
    void failAfterTimeout(long batchEpoch) {
        lock.lock();
        try {
            if (state != ChannelState.CLOSED && !qpClosed.get() && batchEpoch == epoch) {
                int rc = modifier.toError(qp);
                if (rc != 0) {
                    LOG.warn("channel {}: moving the queue pair to ERR after a batch timeout failed: {}",
                            channelId, Errno.describe(rc));
                }
                state = ChannelState.ERROR;
            }
        } finally {
            lock.unlock();
        }
    }

    /** First step of a reset: ERROR, and the queue pair to ERR so the device flushes what it holds. */
    void toErrorForResetLocked() throws TransportException {
        state = ChannelState.ERROR;
        int rc = modifier.toError(qp);
        if (rc != 0) {
            throw new TransportException(TransportError.IO, "channel " + channelId
                    + ": moving the queue pair to ERR for a reset failed: " + Errno.describe(rc));
        }
    }

    /** Second step of a reset: ERR → RESET, which drops what the device had not completed, CQEs included. */
    void toResetLocked() throws TransportException {
        int rc = modifier.toReset(qp);
        if (rc != 0) {
            throw new TransportException(TransportError.IO, "channel " + channelId + ": moving the queue pair to"
                    + " RESET failed: " + Errno.describe(rc) + "; the channel is in ERROR");
        }
    }

    /**
     * Last step of a reset: RESET → INIT with the transport's attributes; a new epoch, no peer. On refusal the
     * queue pair goes to ERR (RESET accepts no sends; in ERR later work is flushed, as ERROR promises).
     */
    void toInitLocked() throws TransportException {
        int rc = transport.toInit(qp);
        if (rc != 0) {
            modifier.toError(qp);
            throw new TransportException(TransportError.IO, "channel " + channelId
                    + ": RESET→INIT refused: " + Errno.describe(rc) + "; the channel is in ERROR");
        }
        epoch++;
        remote = null;
        state = ChannelState.INIT;
    }

    /**
     * Close's transition: CLOSED, and the queue pair to ERR so the device flushes what is in flight. False if
     * close had begun already (it happens once).
     */
    boolean close() {
        if (!qpClosed.compareAndSet(false, true)) {
            return false;
        }
        lock.lock();
        try {
            state = ChannelState.CLOSED;
            int rc = modifier.toError(qp);
            if (rc != 0) {
                LOG.warn("channel {}: moving the queue pair to ERR at close failed: {}", channelId,
                        Errno.describe(rc));
            }
        } finally {
            lock.unlock();
        }
        return true;
    }
}
