package org.objrdma.session.internal;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.LeaseHandle;
import org.objrdma.api.session.ObjectAccess;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.PrepareResult;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.ReadyResult;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionInfo;
import org.objrdma.api.session.SessionLimits;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.SessionSnapshot;
import org.objrdma.api.session.SessionTerminalListener;
import org.objrdma.api.session.StagingSource;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Transport;

/**
 * The RC session core as one {@link SessionManager}: wires the parts and routes each call to the one that owns it.
 * A plain object: clock, randomness, staging pool, transport, telemetry and listeners are handed in, so unit tests
 * run it without OSGi; {@link SessionManagerComponent} wraps it as the DS service.
 *
 * <p>The parts: {@link SessionTable} (live sessions and the one per-session call template), {@link Session} (one
 * session's state and its transitions), {@link PrepareCommand}, {@link ReadyCommand}, {@link PutFinalizers},
 * {@link SessionReaper} (the deadline agent), {@link SessionTeardown} (one session's release order and terminal
 * notification) and {@link SessionEnding} (cancel-all, a transport or pool gone, shutdown).
 *
 * <p><b>Concurrency.</b> Each session is guarded by its own monitor; no global lock is taken on any call. Nothing
 * blocking (transport calls, staging returns, listeners) runs under a session monitor. Teardown is claimed by moving
 * the session to REAPING under its monitor, which happens at most once: that is what makes the terminal notification
 * fire exactly once, whichever thread (a finish call, the reaper, a transport unbind, shutdown) gets there first.
 */
public final class SessionCore implements SessionManager {
    private final SessionSettings settings;
    private final SessionLimits limits;
    private final CoreBindings bindings = new CoreBindings();
    private final LimitAccounting accounting;
    private final SlotCounter readySlots;
    private final SlotCounter stageSlots;
    private final SessionTable table;
    private final SessionReaper reaper;
    private final SessionEnding ending;
    private final PrepareCommand prepare;
    private final ReadyCommand ready;
    private final PutFinalizers finalizers;
    private final RouteUseCases useCases;

    public SessionCore(SessionSettings settings, MonotonicClock clock, RandomSource random) {
        this.settings = settings;
        this.limits = settings.toLimits();
        this.accounting = new LimitAccounting(settings);
        this.readySlots = new SlotCounter("READY", settings.maxReadySlots());
        this.stageSlots = new SlotCounter("stage", settings.maxStageSlots());
        DeadlineSlots deadlineSlots = new DeadlineSlots(Math.toIntExact(settings.maxSessions()));
        AtomicLong workRequestIds = new AtomicLong();
        this.table = new SessionTable(clock, random, settings.leaseTimeoutMs(),
                new SessionTeardown(accounting, bindings));
        this.reaper = new SessionReaper(table, deadlineSlots, settings.reaperPeriodMs());
        this.ending = new SessionEnding(table, reaper, bindings, settings.shutdownTimeoutMs());
        this.prepare = new PrepareCommand(settings, bindings, table, accounting, deadlineSlots, workRequestIds);
        this.ready = new ReadyCommand(settings, bindings, table, readySlots, workRequestIds);
        this.finalizers = new PutFinalizers(table, settings.leaseTimeoutMs());
        this.useCases = new RouteUseCases(this, table);
    }

    // ------------------------------------------------------------------ environment

    /** Which node this is among the gateways of one store: new session ids carry its tag. */
    public void useFleet(NodeFleet f) {
        bindings.fleet(f);
    }

    @Override
    public Optional<URI> foreignOwner(SessionId sessionId) {
        return bindings.fleet().foreignOwner(sessionId);
    }

    /** New sessions open their channels here; sessions already open keep theirs. */
    public void useTransport(Transport t) {
        bindings.transport(t);
    }

    /**
     * {@code t} went away: every session on it ends with a wire failure ({@link SessionEnding#endWhere}).
     *
     * @return how many sessions were ended
     */
    public int transportGone(Transport t) {
        bindings.transportGone(t);
        return ending.endWhere(s -> s.plan.transport() == t, "transport " + t.name() + " went away");
    }

    /** New sessions borrow staging here. */
    public void useStagingPool(StagingPool pool) {
        bindings.stagingPool(pool);
    }

    /** {@code pool} went away: sessions holding its buffers end as after a transport loss. */
    public int stagingPoolGone(StagingPool pool) {
        bindings.stagingPoolGone(pool);
        return ending.endWhere(s -> s.plan.pool() == pool, "staging pool went away");
    }

    public void useTelemetry(Telemetry t) {
        bindings.telemetry(t);
    }

    public void addTerminalListener(SessionTerminalListener listener) {
        bindings.addListener(listener);
    }

    public void removeTerminalListener(SessionTerminalListener listener) {
        bindings.removeListener(listener);
    }

    public SessionSettings settings() {
        return settings;
    }

    // ------------------------------------------------------------------ the calls of rc_server_abi.h

    @Override
    public SessionResult<PrepareResponse> prepare(PrepareRequest request) {
        PrepareResult r = prepare.run(request);
        return r.isOk() ? SessionResult.ok(r.response()) : SessionResult.failed(r.status());
    }

    /** PREPARE whose refusal says which limit refused ({@link PrepareResult#reason()}). */
    PrepareResult prepareWithReason(PrepareRequest request) {
        return prepare.run(request);
    }

    // ------------------------------------------------------------------ the use cases of the S3 routes

    @Override
    public PrepareResult prepareGet(PrepareRequest request, StagingSource source) {
        return useCases.prepareGet(request, source);
    }

    @Override
    public PrepareResult preparePut(PrepareRequest request) {
        return useCases.preparePut(request);
    }

    @Override
    public ReadyResult ready(ReadyRequest request, ObjectAccess access) {
        return useCases.ready(request, access);
    }

    @Override
    public RcStatus finishPrepare(SessionId sessionId, boolean committed) {
        if (sessionId == null) {
            return RcStatus.ARG;
        }
        return table.withSession(sessionId, RcStatus.NO_SESSION, (s, now) -> s.finishPrepare(committed));
    }

    @Override
    public SessionResult<SessionBuffer> borrowStaging(SessionId sessionId) {
        if (sessionId == null) {
            return SessionResult.failed(RcStatus.ARG);
        }
        return table.withSession(sessionId, SessionResult.failed(RcStatus.NO_SESSION),
                (s, now) -> s.lendStaging(now, settings.leaseTimeoutMs()));
    }

    @Override
    public RcStatus finishStaging(SessionId sessionId, LeaseHandle lease, boolean ok, long written, String etag,
                                  String versionId) {
        if (sessionId == null) {
            return RcStatus.ARG;
        }
        if (lease == null) {
            return RcStatus.STALE;
        }
        String tag = etag == null ? "" : etag;
        String version = versionId == null ? "" : versionId;
        // a gone session's handle is stale, as in the C core
        return table.withSession(sessionId, RcStatus.STALE, (s, now) -> s.finishStaging(lease, ok, written, tag, version));
    }

    @Override
    public SessionResult<SessionInfo> sessionInfo(SessionId sessionId, PrincipalId who) {
        if (sessionId == null || who == null) {
            return SessionResult.failed(RcStatus.ARG);
        }
        return table.withSession(sessionId, SessionResult.failed(RcStatus.NO_SESSION), (s, now) -> {
            if (s.endsNow()) {
                return SessionResult.failed(RcStatus.NO_SESSION); // it expired just now: this call ends it
            }
            return s.plan.principal().equals(who) ? SessionResult.ok(new SessionInfo(s.plan.op(), s.plan.target()))
                    : SessionResult.failed(RcStatus.SESSION);
        });
    }

    @Override
    public SessionResult<ReadyResponse> readyTransfer(ReadyRequest request) {
        return ready.run(request, null);
    }

    @Override
    public SessionResult<ReadyResponse> readyTransfer(ReadyRequest request, StagingSource rest) {
        return ready.run(request, rest);
    }

    @Override
    public SessionResult<SessionBuffer> getPutData(SessionId sessionId) {
        return finalizers.getPutData(sessionId);
    }

    @Override
    public RcStatus finishPut(SessionId sessionId, LeaseHandle view, boolean committed, String etag, String versionId) {
        return finalizers.finishPut(sessionId, view, committed, etag, versionId);
    }

    @Override
    public RcStatus finishFinal(SessionId sessionId) {
        return finalizers.finishFinal(sessionId);
    }

    @Override
    public RcStatus cancel(SessionId sessionId, PrincipalId who) {
        if (sessionId == null || who == null) {
            return RcStatus.ARG;
        }
        return table.withSession(sessionId, RcStatus.NO_SESSION, (s, now) -> s.cancel(who));
    }

    @Override
    public void cancelAll() {
        ending.markAll(TerminalReason.CANCELLED);
    }

    @Override
    public RcStatus tryAcquireReadySlot() {
        return readySlots.tryAcquire() ? RcStatus.OK : RcStatus.LIMIT;
    }

    @Override
    public void releaseReadySlot() {
        readySlots.release();
    }

    @Override
    public RcStatus tryAcquireStageSlot() {
        return stageSlots.tryAcquire() ? RcStatus.OK : RcStatus.LIMIT;
    }

    @Override
    public void releaseStageSlot() {
        stageSlots.release();
    }

    @Override
    public List<SessionSnapshot> snapshot() {
        long now = table.millis();
        List<SessionSnapshot> out = new ArrayList<>(table.size());
        for (Session s : table.live()) {
            synchronized (s) {
                out.add(s.snapshot(now));
            }
        }
        return out;
    }

    @Override
    public SessionLimits limits() {
        return limits;
    }

    // ------------------------------------------------------------------ inspection (shell, MBeans, tests)

    /** Every mutable field of one session, or empty if it is gone. */
    public Optional<SessionDetail> detail(SessionId sessionId) {
        Session s = table.get(sessionId);
        if (s == null) {
            return Optional.empty();
        }
        synchronized (s) {
            return Optional.of(s.detail());
        }
    }

    /** Live sessions. */
    public int liveSessions() {
        return table.size();
    }

    /** Charges now: sessions, queue pairs and principals with live sessions (staging bytes: the pool's stats). */
    public LimitAccounting.Usage usage() {
        return accounting.usage();
    }

    /** One principal's charges: sessions, queue pairs. */
    public long[] usageOf(PrincipalId principal) {
        return accounting.usageOf(principal);
    }

    public int readySlotsInUse() {
        return readySlots.inUse();
    }

    public int stageSlotsInUse() {
        return stageSlots.inUse();
    }

    // ------------------------------------------------------------------ reaper, shutdown

    /** One reaper pass now. @return sessions torn down by it */
    public int reapPass() {
        return reaper.pass();
    }

    /** Starts the reaper agent, one pass every {@code reaper.period.ms}. Idempotent. */
    public void startReaper() {
        reaper.start();
    }

    /** {@link SessionEnding#shutdown}: stops admissions, ends every session, waits up to {@code timeout}. */
    public ShutdownReport shutdown(Duration timeout) {
        return ending.shutdown(timeout);
    }

    /** True once {@link #shutdown} began: PREPARE and READY answer SHUTDOWN. */
    public boolean isClosing() {
        return bindings.closing();
    }
}
