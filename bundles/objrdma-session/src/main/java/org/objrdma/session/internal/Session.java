package org.objrdma.session.internal;

import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionState;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.wire.RemoteSlice;

/**
 * One session: what PREPARE fixed (final fields) and where it stands (guarded by the session's own
 * monitor; every mutable field is read and written under {@code synchronized (session)}).
 *
 * <p>Pins: a session marked {@link #reapPending} is torn down only when nothing holds it — no staging
 * lease, no put view, no completion reference ({@link #activeRef}: the READY data phase, then the
 * gateway until its finalizer) and no put reference ({@link #putRef}).
 */
final class Session {
    /** 0 in a deadline field: not armed. */
    static final long NOT_ARMED = 0L;

    final SessionId id;
    final long epoch;
    final PrincipalId principal;
    final Op op;
    final String target;
    final long offset;
    final int size;
    final int cookie;
    final int clientPsn;
    /** The client endpoint given at PREPARE (READY completes it); null for control-plane-only sessions. */
    final EndpointInfo clientEndpoint;
    /** GET: the client memory named at PREPARE; READY may name another. */
    final RemoteRegion preparedClientRegion;
    final long createdAtMillis;
    final Transport transport;
    final StagingPool pool;
    final StagingLease staging;
    /** Where the lease's bytes start inside its registered region. */
    final long stagingOffset;
    /**
     * A GET larger than one staging buffer: the second of its two chunk buffers ({@link #staging} is the first);
     * null for every other session.
     */
    final StagingLease secondStaging;
    /** Where {@link #secondStaging}'s bytes start inside its registered region. */
    final long secondStagingOffset;
    /** Bytes per chunk of a chunked GET ({@link ChunkedGetPhase}); 0 when the range fits one buffer. */
    final int chunkBytes;
    /** What the session's limits are charged: its size, or a chunked GET's two chunk buffers. */
    final long stagingCharge;
    /** Staging memory the session holds: the whole buffers lent (their size classes), not the size asked for. */
    final long stagingBytesHeld;
    /** The session's one channel: a Busy READY resets it, so its endpoint is the one PREPARE returned. */
    final Channel channel;
    /** PUT: the client's access to the staging slice (a grant on {@link #channel}); null for GET. */
    final RemoteSlice stagingAccess;
    /** PUT on a transport that grants only once connected: the receive posted at PREPARE, {@link #channel} connected then; else null. */
    final java.util.concurrent.CompletableFuture<org.objrdma.api.transport.BatchResult> armedReceive;
    /** The work request id of {@link #armedReceive} (0 without one). */
    final long armedWrId;

    // ---- guarded by this ----
    SessionState state = SessionState.PREPARED;
    boolean reapPending;
    boolean published;
    boolean stageDone;
    long prepDeadline = NOT_ARMED;
    long execDeadline = NOT_ARMED;
    /** Deadline of the outstanding staging lease. */
    long stagingLeaseDeadline = NOT_ARMED;
    /** Deadline of the gateway-held completion reference or put view. */
    long refDeadline = NOT_ARMED;
    long nextNonce = 1;
    long stagingNonce;
    long putViewNonce;
    int activeRef;
    int putRef;
    ReadyOutcome lastOutcome;
    TerminalReason terminalReason;
    long bytesTransferred;
    String etag = "";
    String versionId = "";
    /** Set when the session's transport went away: whatever the data phase reports, READY answers WIRE. */
    boolean transportLost;
    /** Chunked GET: the first buffer still holds the first chunk staged at PREPARE (a READY overwrites it). */
    boolean headStaged;

    /** The earliest armed deadline, or {@link Long#MAX_VALUE}; mirrored into {@link #slot} for the reaper. */
    long earliestDeadline = Long.MAX_VALUE;
    /** This session's slot in {@link #deadlineSlots} while it lives, -1 before and after. */
    int slot = -1;
    final DeadlineSlots deadlineSlots;

    Session(SessionId id, long epoch, PrincipalId principal, Op op, String target, long offset, int size, int cookie,
            int clientPsn, EndpointInfo clientEndpoint, RemoteRegion preparedClientRegion, long createdAtMillis,
            Transport transport, StagingPool pool, StagingLease staging, long stagingOffset, Channel channel,
            PutStaging putStaging, DeadlineSlots deadlineSlots) {
        this(id, epoch, principal, op, target, offset, size, cookie, clientPsn, clientEndpoint, preparedClientRegion,
                createdAtMillis, transport, pool, staging, stagingOffset, null, 0, 0, size, channel, putStaging,
                deadlineSlots);
    }

    Session(SessionId id, long epoch, PrincipalId principal, Op op, String target, long offset, int size, int cookie,
            int clientPsn, EndpointInfo clientEndpoint, RemoteRegion preparedClientRegion, long createdAtMillis,
            Transport transport, StagingPool pool, StagingLease staging, long stagingOffset, StagingLease secondStaging,
            long secondStagingOffset, int chunkBytes, long stagingCharge, Channel channel, PutStaging putStaging,
            DeadlineSlots deadlineSlots) {
        this.id = id;
        this.epoch = epoch;
        this.principal = principal;
        this.op = op;
        this.target = target;
        this.offset = offset;
        this.size = size;
        this.cookie = cookie;
        this.clientPsn = clientPsn;
        this.clientEndpoint = clientEndpoint;
        this.preparedClientRegion = preparedClientRegion;
        this.createdAtMillis = createdAtMillis;
        this.transport = transport;
        this.pool = pool;
        this.staging = staging;
        this.stagingOffset = stagingOffset;
        this.secondStaging = secondStaging;
        this.secondStagingOffset = secondStagingOffset;
        this.chunkBytes = chunkBytes;
        this.stagingCharge = stagingCharge;
        this.stagingBytesHeld = (staging == null ? 0 : staging.region().length())
                + (secondStaging == null ? 0 : secondStaging.region().length());
        this.channel = channel;
        this.stagingAccess = putStaging == null ? null : putStaging.access();
        this.armedReceive = putStaging == null ? null : putStaging.armedReceive();
        this.armedWrId = putStaging == null ? 0 : putStaging.armedWrId();
        this.deadlineSlots = deadlineSlots;
    }

    /** True for a GET larger than one staging buffer, moved in chunks at READY. */
    boolean chunked() {
        return chunkBytes != 0;
    }

    /** Bytes the gateway stages at PREPARE: the whole range, or a chunked GET's first chunk. */
    long stagedAtPrepare() {
        return chunked() ? chunkBytes : size;
    }

    /** Caller holds the monitor. True while anything the teardown must wait for is out. */
    boolean pinned() {
        return stagingNonce != 0 || putViewNonce != 0 || activeRef != 0 || putRef != 0;
    }

    /** Caller holds the monitor. Marks the session for teardown; the first reason recorded wins. */
    void markReapPending(TerminalReason reason) {
        if (!reapPending) {
            reapPending = true;
            terminalReason = reason;
        }
    }

    /**
     * Caller holds the monitor. The finalizer ran after a successful data phase: the session succeeded, and
     * says so in its terminal event even when an earlier mark (its transport vanishing after the bytes
     * moved, a shutdown) was recorded first.
     */
    void markCompleted() {
        reapPending = true;
        terminalReason = TerminalReason.COMPLETED;
    }

    /** Caller holds the monitor. True while the gateway holds the completion reference (READY ok, not finalized). */
    boolean gatewayHoldsCompletionRef() {
        return state == SessionState.COMPLETING && activeRef != 0;
    }

    /** Caller holds the monitor. Recomputes {@link #earliestDeadline} after any deadline or pin change. */
    void recomputeEarliestDeadline() {
        long earliest = Long.MAX_VALUE;
        if (!reapPending) {
            earliest = earlier(earliest, prepDeadline);
            earliest = earlier(earliest, execDeadline);
        }
        if (stagingNonce != 0) {
            earliest = earlier(earliest, stagingLeaseDeadline);
        }
        if (putViewNonce != 0 || gatewayHoldsCompletionRef()) {
            earliest = earlier(earliest, refDeadline);
        }
        if (earliest != earliestDeadline) {
            earliestDeadline = earliest;
            if (slot >= 0) {
                deadlineSlots.setDeadline(slot, earliest);
            }
        }
    }

    /** Caller holds the monitor. Takes the reaper slot; the session's deadlines become visible to the scan. */
    void takeSlot() {
        slot = deadlineSlots.allocate(this);
        deadlineSlots.setDeadline(slot, earliestDeadline);
    }

    /** Caller holds the monitor. Gives the reaper slot back (at teardown, or when PREPARE rolls back). */
    void releaseSlot() {
        if (slot >= 0) {
            deadlineSlots.free(slot);
            slot = -1;
        }
    }

    private static long earlier(long current, long deadline) {
        return deadline != NOT_ARMED && deadline < current ? deadline : current;
    }
}
