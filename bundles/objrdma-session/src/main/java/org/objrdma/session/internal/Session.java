package org.objrdma.session.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.LeaseHandle;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.SessionSnapshot;
import org.objrdma.api.session.SessionState;
import org.objrdma.api.session.SessionUseCases;
import org.objrdma.api.session.StagingSource;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.session.TerminalReason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One session: what PREPARE fixed ({@link SessionPlan}) and where it stands (guarded by the session's own
 * monitor; every mutable field is read and written under {@code synchronized (session)}).
 *
 * <p>Pins: a session marked {@link #reapPending} is torn down only when nothing holds it — no staging
 * lease, no put view, no completion reference ({@link #activeRef}: the READY data phase, then the
 * gateway until its finalizer) and no put reference ({@link #putRef}).
 */
final class Session {
    private static final Logger LOG = LoggerFactory.getLogger(Session.class);
    /** 0 in a deadline field: not armed. */
    static final long NOT_ARMED = SessionDeadlines.NOT_ARMED;
    /** Longest etag or version id ({@code rc_ready_resp} holds 128 bytes with the terminator). */
    static final int MAX_TAG_CHARS = 127;

    final SessionId id;
    /** What PREPARE fixed; the rest of this class is where the session stands. */
    final SessionPlan plan;

    // ---- guarded by this; changed only by the transitions below ----
    private SessionState state = SessionState.PREPARED;
    private boolean reapPending;
    private boolean published;
    private boolean stageDone;
    private long nextNonce = 1;
    private long stagingNonce;
    private long putViewNonce;
    private int activeRef;
    private int putRef;
    private ReadyOutcome lastOutcome;
    private TerminalReason terminalReason;
    private long bytesTransferred;
    private String etag = "";
    private String versionId = "";
    /** Set when the session's transport went away: whatever the data phase reports, READY answers WIRE. */
    private boolean transportLost;
    /** Chunked GET: the first buffer still holds the first chunk staged at PREPARE (a READY overwrites it). */
    private boolean headStaged;
    /** A GET prepared through the use cases: where its READY stages the chunks after the first; else null. */
    private StagingSource source;

    /** Its deadlines and reaper slot (guarded by this, like the fields above). */
    private final SessionDeadlines deadlines;

    Session(SessionId id, SessionPlan plan, DeadlineSlots deadlineSlots) {
        this.id = id;
        this.plan = plan;
        this.deadlines = new SessionDeadlines(deadlineSlots);
    }

    /** Caller holds the monitor. True while anything the teardown must wait for is out. */
    private boolean pinned() {
        return stagingNonce != 0 || putViewNonce != 0 || activeRef != 0 || putRef != 0;
    }

    /** Caller holds the monitor. Marks the session for teardown; the first reason recorded wins. */
    private void markReapPending(TerminalReason reason) {
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
    private void markCompleted() {
        reapPending = true;
        terminalReason = TerminalReason.COMPLETED;
    }

    /** Caller holds the monitor. True while the gateway holds the completion reference (READY ok, not finalized). */
    private boolean gatewayHoldsCompletionRef() {
        return state == SessionState.COMPLETING && activeRef != 0;
    }

    /** Caller holds the monitor. Recomputes the earliest deadline (what the reaper's slot holds) after any change. */
    void recomputeEarliestDeadline() {
        deadlines.recompute(reapPending, stagingNonce != 0, putViewNonce != 0 || gatewayHoldsCompletionRef());
    }

    /** Caller holds the monitor. Gives the reaper slot back (at teardown, or when PREPARE rolls back). */
    void releaseSlot() {
        deadlines.releaseSlot();
    }

    // ------------------------------------------------------------------ transitions (caller holds the monitor)

    /** PREPARE published this session: its prep deadline is armed and the reaper can see it. */
    void admit(long prepDeadlineMillis) {
        deadlines.prep = prepDeadlineMillis;
        recomputeEarliestDeadline();
        deadlines.takeSlot(this);
    }

    /**
     * Marks the session when its prep or exec deadline passed, and revokes a staging lease, put view or
     * gateway-held completion reference kept past {@code lease.timeout}. Run at the start of every call (through
     * {@link SessionTable#withSession}) and by the reaper, so a deadline is honoured exactly even between passes.
     */
    void applyDeadlines(long now, long leaseTimeoutMs) {
        if (deadlines.earliest() >= now) {
            return; // nothing due: the common case costs one comparison
        }
        if (!reapPending && deadlines.prepOrExecPassed(now)) {
            markReapPending(TerminalReason.EXPIRED);
            LOG.debug("session {}: {} deadline passed", id, deadlines.exec != NOT_ARMED ? "exec" : "prep");
        }
        if (stagingNonce != 0 && now > deadlines.stagingLease) {
            LOG.warn("session {}: staging lease {} held past lease.timeout ({} ms); revoked, the session ends and a"
                    + " later finish with that handle is STALE", id, stagingNonce, leaseTimeoutMs);
            stagingNonce = 0;
            deadlines.stagingLease = NOT_ARMED;
            markReapPending(TerminalReason.EXPIRED);
        }
        if (putViewNonce != 0 && now > deadlines.ref) {
            LOG.warn("session {}: put view {} held past lease.timeout ({} ms); revoked, the session ends and a later"
                    + " finish_put with that handle is STALE", id, putViewNonce, leaseTimeoutMs);
            putViewNonce = 0;
            putRef = 0;
            deadlines.ref = NOT_ARMED;
            markReapPending(TerminalReason.EXPIRED);
        } else if (gatewayHoldsCompletionRef() && now > deadlines.ref) {
            LOG.warn("session {}: READY succeeded but no finalizer came within lease.timeout ({} ms); reference"
                    + " revoked, the session ends", id, leaseTimeoutMs);
            activeRef = 0;
            deadlines.ref = NOT_ARMED;
            markReapPending(TerminalReason.EXPIRED);
        }
        recomputeEarliestDeadline();
    }

    /** {@code rc_finish_prepare}: publish (READY may follow) or abort. */
    RcStatus finishPrepare(boolean committed) {
        if (state != SessionState.PREPARED) {
            return RcStatus.STALE;
        }
        if (!committed) {
            markReapPending(TerminalReason.ABORTED);
            return RcStatus.OK;
        }
        if (reapPending) {
            return RcStatus.STALE; // the C core commits an expired or cancelled session; objrdma refuses
        }
        if (plan.op() == Op.GET && !stageDone) {
            return RcStatus.STATE;
        }
        published = true;
        return RcStatus.OK;
    }

    /** Lends the staging buffer to the gateway (to fill a GET's range) under a consume-once handle. */
    SessionResult<SessionBuffer> lendStaging(long now, long leaseTimeoutMs) {
        if (state != SessionState.PREPARED) {
            return SessionResult.failed(RcStatus.STALE);
        }
        if (stagingNonce != 0) {
            return SessionResult.failed(RcStatus.DOUBLE);
        }
        stagingNonce = nextNonce++;
        deadlines.stagingLease = now + leaseTimeoutMs;
        recomputeEarliestDeadline();
        return SessionResult.ok(new SessionBuffer(id, new LeaseHandle(plan.epoch(), stagingNonce), plan.staging().segment()));
    }

    /** The gateway returns the staging lease: what it staged ({@code written}) and the object's tags. */
    RcStatus finishStaging(LeaseHandle lease, boolean ok, long written, String tag, String version) {
        if (!matches(lease, stagingNonce)) {
            return RcStatus.STALE;
        }
        stagingNonce = 0; // consumed: a second finish is STALE
        deadlines.stagingLease = NOT_ARMED;
        RcStatus status = RcStatus.OK;
        if (!ok) {
            markReapPending(TerminalReason.ABORTED);
        } else if (written != plan.stagedAtPrepare()) {
            markReapPending(TerminalReason.ABORTED);
            status = RcStatus.SHORT;
        } else if (tag.length() > MAX_TAG_CHARS || version.length() > MAX_TAG_CHARS) {
            markReapPending(TerminalReason.ABORTED);
            status = RcStatus.TRUNC;
        } else {
            etag = tag;
            versionId = version;
            stageDone = true;
            headStaged = plan.chunked();
        }
        recomputeEarliestDeadline();
        return status;
    }

    /** {@code rc_cancel}: only the owner may. */
    RcStatus cancel(PrincipalId who) {
        if (!plan.principal().equals(who)) {
            return RcStatus.SESSION;
        }
        markReapPending(TerminalReason.CANCELLED);
        recomputeEarliestDeadline();
        return RcStatus.OK;
    }

    /** True when the session is marked and nothing holds it: the call that sees this is about to end it. */
    boolean endsNow() {
        return reapPending && !pinned();
    }

    /**
     * READY claims the session for its data phase, or is refused in the C core's check order (a refusal changes
     * nothing). {@code hasRest}: the gateway handed over where a chunked GET's later chunks come from.
     */
    ReadyStart claimForReady(ReadyRequest r, boolean hasRest, long now, long execTimeoutMs, long wrId) {
        RcStatus refusal = readyRefusal(r);
        if (refusal == null && plan.chunked() && plan.clientEndpoint() != null && !hasRest) {
            refusal = RcStatus.ARG; // the rest of the range has nowhere to come from: preserved
        }
        if (refusal != null) {
            return ReadyStart.refused(refusal);
        }
        state = SessionState.TRANSFERRING;
        activeRef = 1;
        deadlines.prep = NOT_ARMED;
        deadlines.exec = now + execTimeoutMs;
        ReadyStart.Claim claim = new ReadyStart.Claim(plan.channel(), plan.remoteFor(r), plan.grantedRegion(r), wrId,
                headStaged);
        headStaged = false; // the data phase overwrites the first buffer whatever its outcome
        recomputeEarliestDeadline();
        return ReadyStart.claimed(claim);
    }

    /** The READY checks in the C core's order; null when READY may claim the session. Changes nothing. */
    private RcStatus readyRefusal(ReadyRequest r) {
        if (!plan.principal().equals(r.principal())) {
            return RcStatus.SESSION;
        }
        if (state == SessionState.TRANSFERRING || state == SessionState.COMPLETING) {
            return RcStatus.STATE; // duplicate READY: session preserved
        }
        if (state != SessionState.PREPARED) {
            return RcStatus.STALE;
        }
        if (!published) {
            return RcStatus.STATE;
        }
        if (reapPending) {
            return RcStatus.STALE;
        }
        if (plan.cookie() != r.cookie()) {
            return RcStatus.SESSION;
        }
        // objrdma: arguments that only make sense against the session are checked last, still preserving it
        return plan.fitsReadyArguments(r) ? null : RcStatus.ARG;
    }

    /**
     * The data phase ended (not Busy): OK moves the session to COMPLETING with the gateway holding the completion
     * reference; anything else marks it FAILED. A transport lost meanwhile turns any outcome into WIRE_FAIL.
     */
    ReadyEnd endReady(ReadyOutcome outcome, long bytes, long now, long leaseTimeoutMs) {
        if (state == SessionState.REAPING) {
            return ReadyEnd.TORN_DOWN; // shutdown gave up waiting and tore the session down around the data phase
        }
        ReadyOutcome effective = transportLost ? ReadyOutcome.WIRE_FAIL : outcome;
        lastOutcome = effective;
        deadlines.exec = NOT_ARMED;
        ReadyEnd end;
        if (effective == ReadyOutcome.OK) {
            state = SessionState.COMPLETING;
            bytesTransferred = bytes;
            deadlines.ref = now + leaseTimeoutMs;
            end = ReadyEnd.ok(new ReadyResponse(bytes, plan.cookie(), ReadyOutcome.OK,
                    plan.op() == Op.GET ? etag : "", plan.op() == Op.GET ? versionId : ""));
        } else {
            activeRef = 0;
            markReapPending(TerminalReason.FAILED);
            end = ReadyEnd.failed(effective);
        }
        recomputeEarliestDeadline();
        return end;
    }

    /** A Busy data phase: remembered, the exec deadline disarmed, the session still claimed. */
    void busy() {
        lastOutcome = ReadyOutcome.BUSY;
        deadlines.exec = NOT_ARMED;
        recomputeEarliestDeadline();
    }

    /**
     * After Busy: back to PREPARED (still published, prep deadline re-armed) when the channel was reset and
     * nothing ended the session meanwhile; else the session is marked FAILED.
     *
     * @return true when READY may be retried
     */
    boolean rearmAfterBusy(boolean channelReset, long now, long prepTimeoutMs) {
        boolean retryable = channelReset && !reapPending && !transportLost && state == SessionState.TRANSFERRING;
        if (retryable) {
            state = SessionState.PREPARED;
            activeRef = 0;
            deadlines.prep = now + prepTimeoutMs;
        } else if (state != SessionState.REAPING) {
            activeRef = 0;
            if (transportLost) {
                lastOutcome = ReadyOutcome.WIRE_FAIL;
            }
            markReapPending(TerminalReason.FAILED);
        }
        recomputeEarliestDeadline();
        return retryable;
    }

    /** {@code rc_get_put_data}: the completion reference moves to a put view the store reads the object from. */
    SessionResult<SessionBuffer> lendPutView(long now, long leaseTimeoutMs) {
        if (state != SessionState.COMPLETING || plan.op() != Op.PUT) {
            return SessionResult.failed(RcStatus.STATE);
        }
        if (plan.clientEndpoint() == null) {
            // control plane only: nothing was received, so there is nothing a store may commit
            return SessionResult.failed(RcStatus.STATE);
        }
        if (putViewNonce != 0) {
            return SessionResult.failed(RcStatus.DOUBLE);
        }
        if (activeRef == 0) {
            return SessionResult.failed(RcStatus.STALE); // completion reference revoked: nothing to move
        }
        putViewNonce = nextNonce++;
        // the reference moves to the view in one step: the reaper never sees the session unpinned
        activeRef--;
        putRef++;
        deadlines.ref = now + leaseTimeoutMs;
        recomputeEarliestDeadline();
        return SessionResult.ok(new SessionBuffer(id, new LeaseHandle(plan.epoch(), putViewNonce), plan.staging().segment()));
    }

    /** {@code rc_finish_put}: the store committed (or not) what the put view held. */
    RcStatus finishPut(LeaseHandle view, boolean committed, String tag, String version) {
        if (!matches(view, putViewNonce)) {
            return RcStatus.STALE;
        }
        putViewNonce = 0;
        putRef = Math.max(0, putRef - 1);
        deadlines.ref = NOT_ARMED;
        RcStatus status = RcStatus.OK;
        if (committed) {
            if (tag.length() > MAX_TAG_CHARS || version.length() > MAX_TAG_CHARS) {
                status = RcStatus.TRUNC;
            } else {
                etag = tag;
                versionId = version;
            }
            markCompleted();
        } else {
            markReapPending(TerminalReason.ABORTED);
        }
        recomputeEarliestDeadline();
        return status;
    }

    /** {@code rc_finish_final}: the GET finalizer (or a PUT's without a put view) returns the completion reference. */
    RcStatus finishFinal() {
        if (state == SessionState.REAPING) {
            return RcStatus.STALE;
        }
        if (state != SessionState.COMPLETING || putViewNonce != 0 || putRef != 0) {
            // objrdma: the C core accepts this from any state and decrements blindly; a finalizer
            // belongs only after a successful READY, and after get_put_data finish_put is the only one
            return RcStatus.STATE;
        }
        if (activeRef == 0) {
            return RcStatus.STALE;
        }
        activeRef = 0;
        deadlines.ref = NOT_ARMED;
        markCompleted();
        recomputeEarliestDeadline();
        return RcStatus.OK;
    }

    /** Marks the session for an end every session shares (cancel-all, shutdown). @return true if nothing holds it */
    boolean markForEnd(TerminalReason reason) {
        if (state == SessionState.REAPING) {
            return false;
        }
        markReapPending(reason);
        recomputeEarliestDeadline();
        return !pinned();
    }

    /**
     * Its transport (or staging pool) went away: the session ends with a wire failure, unless its bytes already
     * moved (a completed data phase keeps its OK outcome). @return false if it was already being torn down
     */
    boolean loseTransport() {
        if (state == SessionState.REAPING) {
            return false;
        }
        transportLost = true;
        if (lastOutcome != ReadyOutcome.OK) {
            lastOutcome = ReadyOutcome.WIRE_FAIL;
        }
        markReapPending(TerminalReason.TRANSPORT_LOST);
        recomputeEarliestDeadline();
        return true;
    }

    /**
     * The single claim that makes teardown, and so the terminal notification, happen once: a marked, unpinned
     * session moves to REAPING and gives its reaper slot back. @return true if this call claimed it
     */
    boolean claimForTeardown() {
        if (!reapPending || state == SessionState.REAPING || pinned()) {
            return false;
        }
        state = SessionState.REAPING;
        releaseSlot();
        return true;
    }

    /**
     * Shutdown's forced claim of a session still held: what holds it, and whether its staging may go back to the
     * pool (not while a lease or view of it is out: a holder may still be writing). Null if already claimed.
     */
    Abandonment abandon() {
        if (state == SessionState.REAPING) {
            return null;
        }
        List<String> held = new ArrayList<>();
        if (stagingNonce != 0) {
            held.add("staging lease " + stagingNonce + " not returned");
        }
        if (putViewNonce != 0) {
            held.add("put view " + putViewNonce + " not returned");
        }
        if (activeRef != 0) {
            held.add(state == SessionState.TRANSFERRING ? "READY data phase still running"
                    : "completion reference not finalized");
        }
        boolean returnStaging = stagingNonce == 0 && putViewNonce == 0;
        if (!returnStaging) {
            held.add("staging left with its holder");
        }
        markReapPending(TerminalReason.SHUTDOWN);
        state = SessionState.REAPING;
        releaseSlot();
        return new Abandonment(String.join(", ", held), returnStaging);
    }

    /** What shutdown forced on a held session. */
    record Abandonment(String holders, boolean returnStaging) {
    }

    /** The terminal event of this (torn-down) session. */
    TerminalEvent terminalEvent() {
        return new TerminalEvent(id, plan.op(), plan.target(), terminalReason == null ? TerminalReason.SHUTDOWN : terminalReason,
                Optional.ofNullable(lastOutcome), bytesTransferred);
    }

    SessionSnapshot snapshot(long now) {
        return new SessionSnapshot(id, plan.op(), plan.target(), state, reapPending,
                Duration.ofMillis(Math.max(0, now - plan.createdAtMillis())), plan.stagingBytesHeld());
    }

    SessionDetail detail() {
        return new SessionDetail(plan.epoch(), state, reapPending, published, stageDone, deadlines.prep, deadlines.exec,
                deadlines.stagingLease, deadlines.ref, nextNonce, stagingNonce, putViewNonce, activeRef, putRef,
                lastOutcome, terminalReason, bytesTransferred, etag, versionId, transportLost, plan.channel().id());
    }

    /** A GET prepared through {@link SessionUseCases#prepareGet}: its READY reads later chunks from {@code from}. */
    void attachSource(StagingSource from) {
        source = from;
    }

    /** Where a chunked GET's READY reads its later chunks when the caller names none; null if unknown. */
    synchronized StagingSource source() {
        return source;
    }

    /** The object's etag as staged (a chunked GET's READY checks later chunks against it). */
    synchronized String etag() {
        return etag;
    }

    private boolean matches(LeaseHandle handle, long outstandingNonce) {
        return handle.isValid() && handle.epoch() == plan.epoch() && handle.nonce() == outstandingNonce;
    }
}
