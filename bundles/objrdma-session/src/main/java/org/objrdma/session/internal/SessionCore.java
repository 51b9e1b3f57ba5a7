package org.objrdma.session.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.LeaseHandle;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionInfo;
import org.objrdma.api.session.SessionLimits;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.SessionSnapshot;
import org.objrdma.api.session.SessionState;
import org.objrdma.api.session.SessionTerminalListener;
import org.objrdma.api.session.StagingSource;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Latency;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.wire.TokenResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The RC session core: the state table, legality checks (in the C core's order), consume-once leases,
 * limits, slots, the data phase, the reaper and exactly-once terminal notification. A plain object:
 * clock, randomness, staging pool, transport, telemetry and listeners are handed in, so unit tests run
 * it without OSGi; {@link SessionManagerComponent} wraps it as the DS service.
 *
 * <p><b>Concurrency.</b> Sessions live in a {@link ConcurrentHashMap}; each session is guarded by its own
 * monitor. No global lock is taken on any call. Nothing blocking (transport calls, staging returns,
 * listeners) runs under a session monitor. Teardown is claimed by moving the session to
 * {@link SessionState#REAPING} under its monitor, which happens at most once: that is what makes the
 * terminal notification fire exactly once, whichever thread (a finish call, the reaper, a transport
 * unbind, shutdown) gets there first.
 *
 * <p><b>Teardown order</b> (one visible place, {@link #tearDown}): close the channel (so no transfer can
 * touch staging any more), return the staging lease, release the limit charges, count, notify.
 */
public final class SessionCore implements SessionManager {
    private static final Logger LOG = LoggerFactory.getLogger(SessionCore.class);

    /** Largest session: what one verbs scatter-gather entry can carry. */
    static final long MAX_SIZE = 0x7fff_ffffL;
    /** Longest target ({@code rc_session_info_resp.target} holds 2048 bytes with the terminator). */
    static final int MAX_TARGET_CHARS = 2047;
    /** Longest etag or version id ({@code rc_ready_resp} holds 128 bytes with the terminator). */
    static final int MAX_TAG_CHARS = 127;
    private static final long MAX_24_BITS = 0xFF_FFFFL;
    /** The rkey of a GET's staging region in PREPARE's answer: a GET client is granted nothing on the server. */
    static final int NO_REMOTE_KEY = 0;
    private static final HexFormat HEX = HexFormat.of();

    private final SessionSettings settings;
    private final SessionLimits limits;
    private final MonotonicClock clock;
    private final RandomSource random;
    private final ChannelOptions channelOptions;
    private final ConcurrentHashMap<SessionId, Session> sessions = new ConcurrentHashMap<>();
    /**
     * Sessions claimed for teardown (REAPING, out of {@link #sessions}) whose teardown has not yet notified its
     * listeners. A session leaves {@link #sessions} before its teardown runs, so without this a shutdown racing a
     * teardown on another thread (a READY that just failed) found nothing live, returned, and DS unbound the
     * listeners before that teardown reached them: the session ended without its terminal event.
     */
    private final java.util.Set<Session> endingNow = ConcurrentHashMap.newKeySet();
    private final AtomicLong epochs = new AtomicLong();
    private final AtomicLong workRequestIds = new AtomicLong();
    private final LimitAccounting accounting;
    private final SlotCounter readySlots;
    private final SlotCounter stageSlots;
    private final DeadlineSlots deadlineSlots;
    private final CopyOnWriteArrayList<SessionTerminalListener> listeners = new CopyOnWriteArrayList<>();

    private volatile Transport transport;
    private volatile StagingPool stagingPool;
    private volatile Telemetry telemetry = Telemetry.NOOP;
    private volatile NodeFleet fleet = NodeFleet.NONE;
    private volatile boolean closing;

    private final Object reaperLock = new Object();
    private ScheduledExecutorService reaper; // guarded by reaperLock

    public SessionCore(SessionSettings settings, MonotonicClock clock, RandomSource random) {
        this.settings = settings;
        this.limits = settings.toLimits();
        this.clock = clock;
        this.random = random;
        this.accounting = new LimitAccounting(settings);
        this.readySlots = new SlotCounter("READY", settings.maxReadySlots());
        this.stageSlots = new SlotCounter("stage", settings.maxStageSlots());
        this.deadlineSlots = new DeadlineSlots(Math.toIntExact(settings.maxSessions()));
        // one request in flight per direction; connecting may use the whole exec budget
        // a dial of the client endpoint is cut off at the failed-dial delay, so no failure can outlast the pad
        this.channelOptions = new ChannelOptions(4, 4, 1,
                settings.dialPacing().dialTimeout(Duration.ofMillis(settings.execTimeoutMs())));
    }

    // ------------------------------------------------------------------ environment

    /** Which node this is among the gateways of one store: new session ids carry its tag. */
    public void useFleet(NodeFleet f) {
        fleet = java.util.Objects.requireNonNull(f, "fleet");
    }

    @Override
    public Optional<java.net.URI> foreignOwner(SessionId sessionId) {
        return fleet.foreignOwner(sessionId);
    }

    /** New sessions open their channels here; sessions already open keep theirs. */
    public void useTransport(Transport t) {
        transport = t;
    }

    /**
     * {@code t} went away: every session on it ends with a wire failure. Its channel is closed now (a
     * running data phase fails at once with a flush), staging returns as soon as nothing holds it, and
     * the terminal notification fires once.
     *
     * @return how many sessions were ended
     */
    public int transportGone(Transport t) {
        if (transport == t) {
            transport = null;
        }
        return endSessionsWhere(s -> s.transport == t, "transport " + t.name() + " went away");
    }

    /** New sessions borrow staging here. */
    public void useStagingPool(StagingPool pool) {
        stagingPool = pool;
    }

    /**
     * {@code pool} went away: sessions holding its buffers end as after a transport loss (their staging
     * registrations go with it).
     */
    public int stagingPoolGone(StagingPool pool) {
        if (stagingPool == pool) {
            stagingPool = null;
        }
        return endSessionsWhere(s -> s.pool == pool, "staging pool went away");
    }

    public void useTelemetry(Telemetry t) {
        telemetry = t == null ? Telemetry.NOOP : t;
    }

    public void addTerminalListener(SessionTerminalListener listener) {
        listeners.add(listener);
    }

    public void removeTerminalListener(SessionTerminalListener listener) {
        listeners.remove(listener);
    }

    public SessionSettings settings() {
        return settings;
    }

    // ------------------------------------------------------------------ PREPARE

    @Override
    public SessionResult<PrepareResponse> prepare(PrepareRequest request) {
        if (request == null) {
            return SessionResult.failed(RcStatus.ARG);
        }
        if (closing) {
            return SessionResult.failed(RcStatus.SHUTDOWN);
        }
        Transport t = transport;
        StagingPool pool = stagingPool;
        String argError = prepareArgumentError(request, t, pool, settings.controlPlaneOnly());
        if (argError != null) {
            LOG.debug("PREPARE refused (ARG): {}", argError);
            return SessionResult.failed(RcStatus.ARG);
        }
        if (request.clientEndpoint() != null) {
            // the endpoint is client input: without this check a PREPARE could make the server dial its own host
            TokenResult<EndpointInfo> allowed = settings.addressPolicy().check(request.clientEndpoint());
            if (!allowed.isOk()) {
                LOG.debug("PREPARE refused (ARG): client endpoint {}", allowed.detail());
                return SessionResult.failed(RcStatus.ARG);
            }
        }
        PrincipalId principal = request.principal();
        int size = (int) request.size();
        // above the pool's largest buffer: a GET moves in chunks through two pool buffers (the server writes into
        // the client's memory, so chunking is invisible to it); a PUT needs one window of its size, a dedicated lease
        int chunk = request.op() == Op.GET && pool != null && size > pool.maxBufferSize()
                ? (int) pool.maxBufferSize() : 0;
        boolean dedicated = request.op() == Op.PUT && pool != null && size > pool.maxBufferSize();
        long charge = chunk != 0 ? 2L * chunk : size;
        String refusedBy = accounting.take(principal, charge);
        if (refusedBy != null) {
            LOG.info("PREPARE refused (LIMIT): {} reached for {} ({} staging bytes asked)", refusedBy, principal, charge);
            return SessionResult.failed(RcStatus.LIMIT);
        }
        // From here on, everything taken is given back unless the session is published in the map.
        boolean charged = true;
        StagingLease lease = null;
        StagingLease secondLease = null;
        Channel channel = null;
        PutStaging stagingAccess = null;
        Session created = null;
        try {
            if (request.target().length() > MAX_TARGET_CHARS) {
                return SessionResult.failed(RcStatus.TRUNC);
            }
            SessionId id = newSessionId();
            if (id == null) {
                return SessionResult.failed(RcStatus.INTERNAL);
            }
            if (t == null || pool == null) {
                LOG.warn("PREPARE refused (INTERNAL): no {} bound", t == null ? "transport" : "staging pool");
                return SessionResult.failed(RcStatus.INTERNAL);
            }
            if (!t.isAvailable() || !selects(t)) {
                LOG.warn("PREPARE refused (INTERNAL): transport {} {}", t.name(), t.isAvailable()
                        ? "does not match dev.name '" + settings.devName() + "'"
                        : "is unavailable: " + t.unavailabilityCause().orElse("no cause given"));
                return SessionResult.failed(RcStatus.INTERNAL);
            }
            try {
                // on t itself: the pool may prefer another transport at this moment, the lease must match the channel
                if (dedicated) {
                    lease = pool.borrowDedicated(size, principal, id.hex(), t);
                } else if (chunk != 0) {
                    lease = pool.borrow(chunk, principal, id.hex(), Duration.ZERO, t);
                    secondLease = pool.borrow(chunk, principal, id.hex(), Duration.ZERO, t);
                } else {
                    lease = pool.borrow(size, principal, id.hex(), Duration.ZERO, t);
                }
            } catch (StagingException e) {
                RcStatus status = switch (e.status()) {
                    case LIMIT -> RcStatus.LIMIT;
                    case INVALID_SIZE -> RcStatus.ARG;
                    // t went away from the pool an instant before this core heard of it: a wire failure
                    case NO_TRANSPORT -> RcStatus.WIRE;
                    default -> RcStatus.INTERNAL;
                };
                if (status == RcStatus.LIMIT && (dedicated || chunk != 0)) {
                    // a large session's refusal names the staging limit in the log: the answer cannot carry it
                    LOG.info("PREPARE refused (LIMIT) for a {}-byte {}: {}", size, request.op(), e.getMessage());
                } else {
                    LOG.debug("PREPARE refused ({}): staging borrow failed: {}", status, e.getMessage());
                }
                return SessionResult.failed(status);
            }
            long stagingOffset = stagingOffset(lease, chunk != 0 ? chunk : size);
            long secondOffset = secondLease == null ? 0 : stagingOffset(secondLease, chunk);
            if (stagingOffset < 0 || secondOffset < 0 || !lease.region().transportName().equals(t.name())
                    || (secondLease != null && !secondLease.region().transportName().equals(t.name()))) {
                LOG.error("PREPARE refused (INTERNAL): staging lease of {} bytes is not a registration of"
                        + " transport {} covering its segment (region of {})", size, t.name(),
                        lease.region().transportName());
                return SessionResult.failed(RcStatus.INTERNAL);
            }
            try {
                channel = t.openChannel(channelOptions);
            } catch (TransportException e) {
                RcStatus status = e.error() == TransportError.RESOURCE_EXHAUSTED ? RcStatus.LIMIT : RcStatus.INTERNAL;
                LOG.warn("PREPARE refused ({}): transport {} could not open a channel: {}", status, t.name(),
                        e.getMessage());
                return SessionResult.failed(status);
            }
            RemoteRegion stagingRegion;
            if (request.op() == Op.PUT) {
                // the client's WRITE_WITH_IMM may reach exactly this session's slice, through this session's
                // channel only, until teardown revokes it (before the lease goes back to the pool); on verbs the
                // channel connects now so that the rkey answered is a window bound to it (PutStaging)
                try {
                    stagingAccess = PutStaging.open(t, channel, lease.region(), stagingOffset, size,
                            request.clientEndpoint(), request.clientPsn(), workRequestIds.incrementAndGet(),
                            Duration.ofMillis(settings.prepTimeoutMs() + settings.execTimeoutMs()));
                } catch (TransportException e) {
                    RcStatus status = e.error() == TransportError.RESOURCE_EXHAUSTED ? RcStatus.LIMIT : RcStatus.INTERNAL;
                    LOG.warn("PREPARE refused ({}): transport {} could not grant the staging slice: {}", status,
                            t.name(), e.getMessage());
                    return SessionResult.failed(status);
                }
                stagingRegion = stagingAccess.access().remote();
            } else {
                // a GET client reaches nothing on the server: the server writes into the client's memory, so the
                // answer names no server address either (address 0, rkey 0)
                stagingRegion = new RemoteRegion(0, chunk != 0 ? chunk : size, NO_REMOTE_KEY);
            }
            long now = clock.millis();
            Session s = new Session(id, epochs.incrementAndGet(), principal, request.op(), request.target(),
                    request.offset(), size, request.cookie(), request.clientPsn(), request.clientEndpoint(),
                    request.clientRegion(), now, t, pool, lease, stagingOffset, secondLease, secondOffset, chunk, charge,
                    channel, stagingAccess, deadlineSlots);
            synchronized (s) {
                s.prepDeadline = now + settings.prepTimeoutMs();
                s.recomputeEarliestDeadline();
                s.takeSlot();
            }
            created = s;
            PrepareResponse response = new PrepareResponse(id, channel.localEndpoint(), stagingRegion);
            if (sessions.putIfAbsent(id, s) != null) {
                LOG.error("PREPARE refused (INTERNAL): random session id collided with a live session");
                return SessionResult.failed(RcStatus.INTERNAL);
            }
            charged = false;
            lease = null;
            secondLease = null;
            channel = null;
            stagingAccess = null;
            created = null;
            telemetry.increment(Counter.SESSIONS_PREPARED);
            return SessionResult.ok(response);
        } finally {
            if (created != null) {
                synchronized (created) {
                    created.releaseSlot();
                }
            }
            if (channel != null) {
                channel.close();
            }
            if (stagingAccess != null) {
                stagingAccess.access().close();
            }
            if (lease != null) {
                lease.release();
            }
            if (secondLease != null) {
                secondLease.release();
            }
            if (charged) {
                accounting.release(principal, charge);
            }
        }
    }

    /** Why the request is malformed, or null. Touches nothing. */
    private static String prepareArgumentError(PrepareRequest r, Transport t, StagingPool pool,
                                               boolean controlPlaneOnly) {
        if (r.size() < 1 || r.size() > MAX_SIZE) {
            return "size " + r.size() + " outside 1.." + MAX_SIZE;
        }
        if (r.offset() < 0 || r.offset() > Long.MAX_VALUE - r.size()) {
            return "offset " + r.offset() + " negative or offset + size overflows";
        }
        if (r.target().isEmpty()) {
            return "empty target";
        }
        if (r.clientPsn() == 0 || (r.clientPsn() & ~MAX_24_BITS) != 0) {
            return "client PSN must be a non-zero 24-bit value";
        }
        if (r.clientEndpoint() == null && !controlPlaneOnly) {
            // no endpoint, no bytes: READY could only claim a success it never moved
            return "no client endpoint (sessions without one exist only with control.plane.only=true)";
        }
        if (r.clientEndpoint() != null && t != null && !r.clientEndpoint().kind().equals(t.endpointKind())) {
            return "client endpoint is " + r.clientEndpoint().kind() + " but the transport takes " + t.endpointKind();
        }
        if (r.clientRegion() != null && r.clientRegion().length() < r.size()) {
            return "client region of " + r.clientRegion().length() + " bytes is shorter than size " + r.size();
        }
        return null;
    }

    private boolean selects(Transport t) {
        return settings.devName().isEmpty() || t.name().equals("verbs:" + settings.devName());
    }

    /** Offset of the lease's bytes in its region, or -1 if the region does not cover them. */
    private static long stagingOffset(StagingLease lease, long size) {
        MemoryRegion region = lease.region();
        long offset = lease.segment().address() - region.segment().address();
        if (offset < 0 || offset > region.length() - size) {
            return -1;
        }
        return offset;
    }

    private SessionId newSessionId() {
        byte[] bits = new byte[16];
        try {
            random.nextBytes(bits);
            fleet.stamp(bits);
        } catch (RuntimeException e) {
            LOG.error("PREPARE refused (INTERNAL): the random source failed", e);
            return null;
        }
        return new SessionId(HEX.formatHex(bits));
    }

    // ------------------------------------------------------------------ finish_prepare, staging

    @Override
    public RcStatus finishPrepare(SessionId sessionId, boolean committed) {
        if (sessionId == null) {
            return RcStatus.ARG;
        }
        Session s = sessions.get(sessionId);
        if (s == null) {
            return RcStatus.NO_SESSION;
        }
        RcStatus status;
        synchronized (s) {
            applyDeadlines(s, clock.millis());
            if (s.state != SessionState.PREPARED) {
                status = RcStatus.STALE;
            } else if (!committed) {
                s.markReapPending(TerminalReason.ABORTED);
                status = RcStatus.OK;
            } else if (s.reapPending) {
                // the C core commits an expired or cancelled session; objrdma refuses
                status = RcStatus.STALE;
            } else if (s.op == Op.GET && !s.stageDone) {
                status = RcStatus.STATE;
            } else {
                s.published = true;
                status = RcStatus.OK;
            }
            s.recomputeEarliestDeadline();
        }
        reapIfUnpinned(s);
        return status;
    }

    @Override
    public SessionResult<SessionBuffer> borrowStaging(SessionId sessionId) {
        if (sessionId == null) {
            return SessionResult.failed(RcStatus.ARG);
        }
        Session s = sessions.get(sessionId);
        if (s == null) {
            return SessionResult.failed(RcStatus.NO_SESSION);
        }
        SessionResult<SessionBuffer> result;
        synchronized (s) {
            long now = clock.millis();
            applyDeadlines(s, now);
            if (s.state != SessionState.PREPARED) {
                result = SessionResult.failed(RcStatus.STALE);
            } else if (s.stagingNonce != 0) {
                result = SessionResult.failed(RcStatus.DOUBLE);
            } else {
                long nonce = s.nextNonce++;
                s.stagingNonce = nonce;
                s.stagingLeaseDeadline = now + settings.leaseTimeoutMs();
                result = SessionResult.ok(new SessionBuffer(s.id, new LeaseHandle(s.epoch, nonce), s.staging.segment()));
            }
            s.recomputeEarliestDeadline();
        }
        reapIfUnpinned(s);
        return result;
    }

    @Override
    public RcStatus finishStaging(SessionId sessionId, LeaseHandle lease, boolean ok, long written, String etag,
                                  String versionId) {
        if (sessionId == null) {
            return RcStatus.ARG;
        }
        Session s = sessions.get(sessionId);
        if (s == null || lease == null) {
            return RcStatus.STALE; // a gone session's handle is stale, as in the C core
        }
        String tag = etag == null ? "" : etag;
        String version = versionId == null ? "" : versionId;
        RcStatus status;
        synchronized (s) {
            applyDeadlines(s, clock.millis());
            if (!matches(lease, s.epoch, s.stagingNonce)) {
                status = RcStatus.STALE;
            } else {
                s.stagingNonce = 0; // consumed: a second finish is STALE
                s.stagingLeaseDeadline = Session.NOT_ARMED;
                if (!ok) {
                    s.markReapPending(TerminalReason.ABORTED);
                    status = RcStatus.OK;
                } else if (written != s.stagedAtPrepare()) {
                    s.markReapPending(TerminalReason.ABORTED);
                    status = RcStatus.SHORT;
                } else if (tag.length() > MAX_TAG_CHARS || version.length() > MAX_TAG_CHARS) {
                    s.markReapPending(TerminalReason.ABORTED);
                    status = RcStatus.TRUNC;
                } else {
                    s.etag = tag;
                    s.versionId = version;
                    s.stageDone = true;
                    s.headStaged = s.chunked();
                    status = RcStatus.OK;
                }
            }
            s.recomputeEarliestDeadline();
        }
        reapIfUnpinned(s);
        return status;
    }

    private static boolean matches(LeaseHandle handle, long epoch, long outstandingNonce) {
        return handle.isValid() && handle.epoch() == epoch && handle.nonce() == outstandingNonce;
    }

    @Override
    public SessionResult<SessionInfo> sessionInfo(SessionId sessionId, PrincipalId who) {
        if (sessionId == null || who == null) {
            return SessionResult.failed(RcStatus.ARG);
        }
        Session s = sessions.get(sessionId);
        if (s == null) {
            return SessionResult.failed(RcStatus.NO_SESSION);
        }
        synchronized (s) {
            applyDeadlines(s, clock.millis());
        }
        if (reapIfUnpinned(s)) {
            return SessionResult.failed(RcStatus.NO_SESSION); // it expired just now
        }
        if (!s.principal.equals(who)) {
            return SessionResult.failed(RcStatus.SESSION);
        }
        return SessionResult.ok(new SessionInfo(s.op, s.target));
    }

    // ------------------------------------------------------------------ READY

    /** What READY took from the session under its monitor, to run the data phase outside it. */
    private record Claim(Channel channel, EndpointInfo remote, RemoteRegion clientRegion, long wrId,
                         boolean headStaged) {
    }

    @Override
    public SessionResult<ReadyResponse> readyTransfer(ReadyRequest request) {
        return readyTransfer(request, null);
    }

    @Override
    public SessionResult<ReadyResponse> readyTransfer(ReadyRequest request, StagingSource rest) {
        if (request == null) {
            return SessionResult.failed(RcStatus.ARG);
        }
        if (closing) {
            return SessionResult.failed(RcStatus.SHUTDOWN);
        }
        if (!readySlots.tryAcquire()) {
            return SessionResult.failed(RcStatus.LIMIT);
        }
        try {
            return readyHoldingSlot(request, rest);
        } finally {
            readySlots.release();
        }
    }

    private SessionResult<ReadyResponse> readyHoldingSlot(ReadyRequest request, StagingSource rest) {
        long readyStart = System.nanoTime();
        Session s = sessions.get(request.sessionId());
        if (s == null) {
            return SessionResult.failed(RcStatus.NO_SESSION);
        }
        Claim claim;
        RcStatus refusal;
        synchronized (s) {
            long now = clock.millis();
            applyDeadlines(s, now);
            refusal = readyRefusal(s, request);
            if (refusal == null && s.chunked() && s.clientEndpoint != null && rest == null) {
                refusal = RcStatus.ARG; // the rest of the range has nowhere to come from: preserved
            }
            if (refusal == null) {
                s.state = SessionState.TRANSFERRING;
                s.activeRef = 1;
                s.prepDeadline = Session.NOT_ARMED;
                s.execDeadline = now + settings.execTimeoutMs();
                claim = new Claim(s.channel, completeEndpoint(s.clientEndpoint, request.clientQpn(), s.clientPsn),
                        grantedRegion(s, request), workRequestIds.incrementAndGet(), s.headStaged);
                s.headStaged = false; // the data phase overwrites the first buffer whatever its outcome
            } else {
                claim = null;
            }
            s.recomputeEarliestDeadline();
        }
        if (refusal != null) {
            reapIfUnpinned(s); // only does something if a deadline passed just now
            return SessionResult.failed(refusal);
        }
        long dataStart = System.nanoTime();
        DataPhaseResult result;
        try {
            result = claim.remote() == null
                    ? DataPhaseResult.nothingMoved() // control-plane only (a test mode): OK, and 0 bytes, honestly
                    : s.armedReceive != null
                    ? DataPhase.awaitArmedPut(s.armedReceive, s.armedWrId, s.cookie, s.size, settings.execTimeoutMs())
                    : s.chunked()
                    ? ChunkedGetPhase.run(claim.channel(), claim.remote(), chunkPlan(s, claim), rest, claim.clientRegion(),
                            s.cookie, workRequestIds::incrementAndGet, settings.execTimeoutMs(), settings.dialPacing())
                    : DataPhase.run(claim.channel(), claim.remote(), s.op,
                            new ScatterGatherEntry(s.staging.region(), s.stagingOffset, s.size), claim.clientRegion(),
                            s.cookie, claim.wrId(), settings.execTimeoutMs(), settings.dialPacing());
        } catch (RuntimeException e) {
            // a transport that throws instead of reporting a status must not leave the session claimed forever
            LOG.warn("session {}: transport {} threw during the data phase", s.id, s.transport.name(), e);
            result = DataPhaseResult.of(ReadyOutcome.WIRE_FAIL, "transport threw " + e);
        }
        telemetry.record(Latency.SESSION_DATA_PHASE, System.nanoTime() - dataStart);
        try {
            return applyOutcome(s, claim, result);
        } finally {
            // a READY refused before it claimed its session is not timed: its answer says nothing of the data path
            telemetry.record(Latency.SESSION_READY, System.nanoTime() - readyStart);
        }
    }

    private static ChunkedGetPhase.Plan chunkPlan(Session s, Claim claim) {
        ScatterGatherEntry[] buffers = {
                new ScatterGatherEntry(s.staging.region(), s.stagingOffset, s.chunkBytes),
                new ScatterGatherEntry(s.secondStaging.region(), s.secondStagingOffset, s.chunkBytes)};
        return new ChunkedGetPhase.Plan(buffers, s.chunkBytes, s.size, s.offset, claim.headStaged(), s.etag);
    }

    /** The READY checks in the C core's order; null when READY may claim the session. Changes nothing. */
    private static RcStatus readyRefusal(Session s, ReadyRequest r) {
        if (!s.principal.equals(r.principal())) {
            return RcStatus.SESSION;
        }
        if (s.state == SessionState.TRANSFERRING || s.state == SessionState.COMPLETING) {
            return RcStatus.STATE; // duplicate READY: session preserved
        }
        if (s.state != SessionState.PREPARED) {
            return RcStatus.STALE;
        }
        if (!s.published) {
            return RcStatus.STATE;
        }
        if (s.reapPending) {
            return RcStatus.STALE;
        }
        if (s.cookie != r.cookie()) {
            return RcStatus.SESSION;
        }
        // objrdma: arguments that only make sense against the session are checked last, still preserving it
        if (s.clientEndpoint != null) {
            long qpn = r.clientQpn();
            if (qpn < 1 || qpn > s.clientEndpoint.maxQueueNumber()) {
                return RcStatus.ARG;
            }
            if (s.armedReceive != null && qpn != s.clientEndpoint.queueNumber()) {
                return RcStatus.ARG; // the channel was connected at PREPARE to the queue pair PREPARE named
            }
            if (s.op == Op.GET && grantedRegion(s, r) == null) {
                return RcStatus.ARG;
            }
        }
        return null;
    }

    /**
     * The client memory a GET session writes into: the session's size from the start READY names, else from the
     * start PREPARE named; one slice for one session whatever longer region either described. READY may name its
     * memory anew (hipObject's client declares it only there), but never outside what PREPARE declared: another
     * key, or a slice not inside the declared region, is null (refused, the session preserved). Null too when no
     * region was named or it is shorter than the session.
     */
    private static RemoteRegion grantedRegion(Session s, ReadyRequest r) {
        RemoteRegion declared = s.preparedClientRegion;
        RemoteRegion named = r.clientRegion() != null ? r.clientRegion() : declared;
        if (named == null || named.length() < s.size) {
            return null;
        }
        if (named != declared && declared != null
                && (named.rkey() != declared.rkey() || !declared.contains(named.address(), s.size))) {
            return null;
        }
        return named.slice(0, s.size);
    }

    /** The client endpoint of PREPARE with READY's queue pair (verbs) or channel (TCP) number filled in. */
    private static EndpointInfo completeEndpoint(EndpointInfo prepared, long clientQpn, int clientPsn) {
        if (prepared == null) {
            return null;
        }
        return prepared.withQueue(clientQpn, clientPsn); // checked against maxQueueNumber() before
    }

    private SessionResult<ReadyResponse> applyOutcome(Session s, Claim claim, DataPhaseResult result) {
        ReadyOutcome outcome = result.outcome();
        if (outcome == ReadyOutcome.BUSY) {
            return rollBackBusy(s, claim, result);
        }
        ReadyResponse response = null;
        synchronized (s) {
            if (s.state == SessionState.REAPING) {
                // shutdown gave up waiting and tore the session down around us
                return SessionResult.failed(RcStatus.WIRE, failedResponse(s, ReadyOutcome.WIRE_FAIL));
            }
            if (s.transportLost) {
                outcome = ReadyOutcome.WIRE_FAIL; // whatever the channel said, the transport is gone
            }
            s.lastOutcome = outcome;
            s.execDeadline = Session.NOT_ARMED;
            if (outcome == ReadyOutcome.OK) {
                s.state = SessionState.COMPLETING;
                s.bytesTransferred = result.bytes();
                s.refDeadline = clock.millis() + settings.leaseTimeoutMs();
                response = new ReadyResponse(result.bytes(), s.cookie, ReadyOutcome.OK,
                        s.op == Op.GET ? s.etag : "", s.op == Op.GET ? s.versionId : "");
            } else {
                s.activeRef = 0;
                s.markReapPending(TerminalReason.FAILED);
            }
            s.recomputeEarliestDeadline();
        }
        if (response != null) {
            telemetry.increment(Counter.SESSIONS_READY_OK);
            return SessionResult.ok(response);
        }
        LOG.info("session {}: READY data phase failed: {} ({})", s.id, outcome, result.detail());
        telemetry.increment(Counter.SESSIONS_READY_FAILED);
        reapIfUnpinned(s);
        return SessionResult.failed(RcStatus.WIRE, failedResponse(s, outcome));
    }

    /** What a failed READY carries: the outcome (TIMEOUT → 504, VERIFY_FAIL / WIRE_FAIL → 502), no bytes. */
    private static ReadyResponse failedResponse(Session s, ReadyOutcome outcome) {
        return new ReadyResponse(0, s.cookie, outcome, "", "");
    }

    /**
     * Busy: the peer was not ready. The session goes back to PREPARED (still published) so the client
     * may retry READY; the prep deadline is re-armed. The channel is reset to INIT (verbs: the same queue
     * pair through RESET, as the C core re-arms it), so it keeps the endpoint PREPARE returned and the client
     * retries against the server endpoint it already has.
     */
    private SessionResult<ReadyResponse> rollBackBusy(Session s, Claim claim, DataPhaseResult result) {
        synchronized (s) {
            s.lastOutcome = ReadyOutcome.BUSY;
            s.execDeadline = Session.NOT_ARMED;
            s.recomputeEarliestDeadline();
        }
        telemetry.increment(Counter.SESSIONS_READY_BUSY);
        String rearmFailure = null;
        if (closing) {
            rearmFailure = "session manager shutting down";
        } else if (s.stagingAccess != null && s.stagingAccess.isChannelBound()) {
            // a reset revokes the channel's grants, and the client holds the rkey PREPARE answered
            rearmFailure = "the staging grant of a PUT ends with a channel reset";
        } else {
            try {
                claim.channel().reset();
            } catch (TransportException | RuntimeException e) {
                rearmFailure = "could not reset the channel: " + e.getMessage();
            }
        }
        boolean retryable;
        synchronized (s) {
            retryable = rearmFailure == null && !s.reapPending && !s.transportLost
                    && s.state == SessionState.TRANSFERRING;
            if (retryable) {
                s.state = SessionState.PREPARED;
                s.activeRef = 0;
                s.prepDeadline = clock.millis() + settings.prepTimeoutMs();
            } else if (s.state != SessionState.REAPING) {
                s.activeRef = 0;
                if (s.transportLost) {
                    s.lastOutcome = ReadyOutcome.WIRE_FAIL;
                }
                s.markReapPending(TerminalReason.FAILED);
            }
            s.recomputeEarliestDeadline();
        }
        if (retryable) {
            LOG.debug("session {}: READY busy ({}); channel {} reset, READY may be retried", s.id,
                    result.detail(), claim.channel().id());
            return SessionResult.ok(new ReadyResponse(0, s.cookie, ReadyOutcome.BUSY, "", ""));
        }
        LOG.info("session {}: READY busy ({}) and not re-armed: {}", s.id, result.detail(),
                rearmFailure != null ? rearmFailure : "the session was cancelled, expired or lost its transport meanwhile");
        reapIfUnpinned(s);
        return SessionResult.failed(RcStatus.WIRE, failedResponse(s, ReadyOutcome.WIRE_FAIL));
    }

    // ------------------------------------------------------------------ PUT data, finalizers

    @Override
    public SessionResult<SessionBuffer> getPutData(SessionId sessionId) {
        if (sessionId == null) {
            return SessionResult.failed(RcStatus.ARG);
        }
        Session s = sessions.get(sessionId);
        if (s == null) {
            return SessionResult.failed(RcStatus.NO_SESSION);
        }
        SessionResult<SessionBuffer> result;
        synchronized (s) {
            long now = clock.millis();
            applyDeadlines(s, now);
            if (s.state != SessionState.COMPLETING || s.op != Op.PUT) {
                result = SessionResult.failed(RcStatus.STATE);
            } else if (s.clientEndpoint == null) {
                // control plane only: nothing was received, so there is nothing a store may commit
                result = SessionResult.failed(RcStatus.STATE);
            } else if (s.putViewNonce != 0) {
                result = SessionResult.failed(RcStatus.DOUBLE);
            } else if (s.activeRef == 0) {
                result = SessionResult.failed(RcStatus.STALE); // completion reference revoked: nothing to move
            } else {
                long nonce = s.nextNonce++;
                s.putViewNonce = nonce;
                // the reference moves to the view in one step: the reaper never sees the session unpinned
                s.activeRef--;
                s.putRef++;
                s.refDeadline = now + settings.leaseTimeoutMs();
                result = SessionResult.ok(new SessionBuffer(s.id, new LeaseHandle(s.epoch, nonce), s.staging.segment()));
            }
            s.recomputeEarliestDeadline();
        }
        reapIfUnpinned(s);
        return result;
    }

    @Override
    public RcStatus finishPut(SessionId sessionId, LeaseHandle view, boolean committed, String etag, String versionId) {
        if (sessionId == null) {
            return RcStatus.ARG;
        }
        Session s = sessions.get(sessionId);
        if (s == null || view == null) {
            return RcStatus.STALE; // "a redundant FinishPut after a commit is a no-op STALE"
        }
        String tag = etag == null ? "" : etag;
        String version = versionId == null ? "" : versionId;
        RcStatus status;
        synchronized (s) {
            applyDeadlines(s, clock.millis());
            if (!matches(view, s.epoch, s.putViewNonce)) {
                status = RcStatus.STALE;
            } else {
                s.putViewNonce = 0;
                s.putRef = Math.max(0, s.putRef - 1);
                s.refDeadline = Session.NOT_ARMED;
                status = RcStatus.OK;
                if (committed) {
                    if (tag.length() > MAX_TAG_CHARS || version.length() > MAX_TAG_CHARS) {
                        status = RcStatus.TRUNC;
                    } else {
                        s.etag = tag;
                        s.versionId = version;
                    }
                }
                if (committed) {
                    s.markCompleted();
                } else {
                    s.markReapPending(TerminalReason.ABORTED);
                }
            }
            s.recomputeEarliestDeadline();
        }
        reapIfUnpinned(s);
        return status;
    }

    @Override
    public RcStatus finishFinal(SessionId sessionId) {
        if (sessionId == null) {
            return RcStatus.ARG;
        }
        Session s = sessions.get(sessionId);
        if (s == null) {
            return RcStatus.NO_SESSION;
        }
        RcStatus status;
        synchronized (s) {
            applyDeadlines(s, clock.millis());
            if (s.state == SessionState.REAPING) {
                status = RcStatus.STALE;
            } else if (s.state != SessionState.COMPLETING || s.putViewNonce != 0 || s.putRef != 0) {
                // objrdma: the C core accepts this from any state and decrements blindly; a finalizer
                // belongs only after a successful READY, and after get_put_data finish_put is the only one
                status = RcStatus.STATE;
            } else if (s.activeRef == 0) {
                status = RcStatus.STALE;
            } else {
                s.activeRef = 0;
                s.refDeadline = Session.NOT_ARMED;
                s.markCompleted();
                status = RcStatus.OK;
            }
            s.recomputeEarliestDeadline();
        }
        reapIfUnpinned(s);
        return status;
    }

    // ------------------------------------------------------------------ cancel, slots, snapshot

    @Override
    public RcStatus cancel(SessionId sessionId, PrincipalId who) {
        if (sessionId == null || who == null) {
            return RcStatus.ARG;
        }
        Session s = sessions.get(sessionId);
        if (s == null) {
            return RcStatus.NO_SESSION;
        }
        RcStatus status;
        synchronized (s) {
            applyDeadlines(s, clock.millis());
            if (!s.principal.equals(who)) {
                status = RcStatus.SESSION;
            } else {
                s.markReapPending(TerminalReason.CANCELLED);
                status = RcStatus.OK;
            }
            s.recomputeEarliestDeadline();
        }
        reapIfUnpinned(s);
        return status;
    }

    @Override
    public void cancelAll() {
        markAll(TerminalReason.CANCELLED);
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
        long now = clock.millis();
        List<SessionSnapshot> out = new ArrayList<>(sessions.size());
        for (Session s : sessions.values()) {
            SessionState state;
            boolean reapPending;
            synchronized (s) {
                state = s.state;
                reapPending = s.reapPending;
            }
            out.add(new SessionSnapshot(s.id, s.op, s.target, state, reapPending,
                    Duration.ofMillis(Math.max(0, now - s.createdAtMillis)), s.stagingBytesHeld));
        }
        return out;
    }

    @Override
    public SessionLimits limits() {
        return limits;
    }

    /** Every mutable field of one session, or empty if it is gone. */
    public Optional<SessionDetail> detail(SessionId sessionId) {
        Session s = sessions.get(sessionId);
        if (s == null) {
            return Optional.empty();
        }
        synchronized (s) {
            return Optional.of(new SessionDetail(s.epoch, s.state, s.reapPending, s.published, s.stageDone, s.prepDeadline,
                    s.execDeadline, s.stagingLeaseDeadline, s.refDeadline, s.nextNonce, s.stagingNonce, s.putViewNonce,
                    s.activeRef, s.putRef, s.lastOutcome, s.terminalReason, s.bytesTransferred, s.etag, s.versionId,
                    s.transportLost, s.channel.id()));
        }
    }

    /** Live sessions. */
    public int liveSessions() {
        return sessions.size();
    }

    /** Charges now: sessions, staging bytes, queue pairs and principals with live sessions. */
    public LimitAccounting.Usage usage() {
        return accounting.usage();
    }

    /** One principal's charges: sessions, staging bytes, queue pairs. */
    public long[] usageOf(PrincipalId principal) {
        return accounting.usageOf(principal);
    }

    public int readySlotsInUse() {
        return readySlots.inUse();
    }

    public int stageSlotsInUse() {
        return stageSlots.inUse();
    }

    // ------------------------------------------------------------------ deadlines, reaper, teardown

    /**
     * Caller holds the monitor. Marks the session when its prep or exec deadline passed, and revokes a
     * staging lease, put view or gateway-held completion reference kept past {@code lease.timeout}. Also
     * run at the start of every call, so a deadline is honoured exactly even between reaper passes.
     */
    private void applyDeadlines(Session s, long now) {
        if (s.earliestDeadline >= now) {
            return; // nothing due: the common case costs one comparison
        }
        if (!s.reapPending) {
            if ((s.prepDeadline != Session.NOT_ARMED && now > s.prepDeadline)
                    || (s.execDeadline != Session.NOT_ARMED && now > s.execDeadline)) {
                s.markReapPending(TerminalReason.EXPIRED);
                LOG.debug("session {}: {} deadline passed", s.id, s.execDeadline != Session.NOT_ARMED ? "exec" : "prep");
            }
        }
        if (s.stagingNonce != 0 && now > s.stagingLeaseDeadline) {
            LOG.warn("session {}: staging lease {} held past lease.timeout ({} ms); revoked, the session ends and a"
                    + " later finish with that handle is STALE", s.id, s.stagingNonce, settings.leaseTimeoutMs());
            s.stagingNonce = 0;
            s.stagingLeaseDeadline = Session.NOT_ARMED;
            s.markReapPending(TerminalReason.EXPIRED);
        }
        if (s.putViewNonce != 0 && now > s.refDeadline) {
            LOG.warn("session {}: put view {} held past lease.timeout ({} ms); revoked, the session ends and a later"
                    + " finish_put with that handle is STALE", s.id, s.putViewNonce, settings.leaseTimeoutMs());
            s.putViewNonce = 0;
            s.putRef = 0;
            s.refDeadline = Session.NOT_ARMED;
            s.markReapPending(TerminalReason.EXPIRED);
        } else if (s.gatewayHoldsCompletionRef() && now > s.refDeadline) {
            LOG.warn("session {}: READY succeeded but no finalizer came within lease.timeout ({} ms); reference"
                    + " revoked, the session ends", s.id, settings.leaseTimeoutMs());
            s.activeRef = 0;
            s.refDeadline = Session.NOT_ARMED;
            s.markReapPending(TerminalReason.EXPIRED);
        }
        s.recomputeEarliestDeadline();
    }

    /**
     * One reaper pass: applies the deadlines of every session that may be due and tears down what they
     * freed. Scans the dense deadline slots, locking only sessions whose earliest deadline passed.
     *
     * @return sessions torn down by this pass
     */
    public int reapPass() {
        long now = clock.millis();
        int[] reaped = new int[1];
        deadlineSlots.forEachDue(deadline -> deadline < now, s -> {
            synchronized (s) {
                applyDeadlines(s, now);
            }
            if (reapIfUnpinned(s)) {
                reaped[0]++;
            }
        });
        return reaped[0];
    }

    /** Starts the reaper thread, one pass every {@code reaper.period.ms}. Idempotent. */
    public void startReaper() {
        synchronized (reaperLock) {
            if (reaper != null) {
                return;
            }
            ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
                Thread thread = new Thread(runnable, "objrdma-session-reaper");
                thread.setDaemon(true);
                return thread;
            });
            executor.setRemoveOnCancelPolicy(true);
            executor.scheduleWithFixedDelay(this::reapPassLogged, settings.reaperPeriodMs(), settings.reaperPeriodMs(),
                    TimeUnit.MILLISECONDS);
            reaper = executor;
        }
    }

    private void reapPassLogged() {
        try {
            reapPass();
        } catch (RuntimeException e) {
            // the scheduler would silently stop repeating a task that threw
            LOG.error("session reaper pass failed; the next pass runs as scheduled", e);
        }
    }

    private void stopReaper() {
        ScheduledExecutorService r;
        synchronized (reaperLock) {
            r = reaper;
            reaper = null;
        }
        if (r != null) {
            r.shutdownNow();
            try {
                r.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Tears the session down if it is marked and nothing holds it. The move to REAPING under the monitor
     * is the single claim that makes teardown, and so the terminal notification, happen once.
     *
     * @return true if this call tore it down
     */
    private boolean reapIfUnpinned(Session s) {
        Channel channel;
        synchronized (s) {
            if (!s.reapPending || s.state == SessionState.REAPING || s.pinned()) {
                return false;
            }
            s.state = SessionState.REAPING;
            s.releaseSlot();
            channel = s.channel;
        }
        endTracked(s, channel, true);
        return true;
    }

    /**
     * Moves a session just claimed (REAPING) from the live map to {@link #endingNow} — in that order, so a
     * shutdown never sees it in neither — and tears it down; it leaves {@link #endingNow} once notified.
     */
    private void endTracked(Session s, Channel channel, boolean returnStaging) {
        endingNow.add(s);
        sessions.remove(s.id, s);
        try {
            tearDown(s, channel, returnStaging);
        } finally {
            endingNow.remove(s);
        }
    }

    /**
     * Releases what the session holds, in the one order that is safe: the channel first (after close no
     * transfer touches staging), then the staging grant (explicitly, whatever the transport did on close:
     * a slice registration outlives the channel), then staging, then the limit charges; then counts and notifies.
     */
    private void tearDown(Session s, Channel channel, boolean returnStaging) {
        try {
            channel.close();
        } catch (RuntimeException e) {
            LOG.warn("session {}: closing channel {} failed", s.id, channel.id(), e);
        }
        if (s.stagingAccess != null) {
            try {
                s.stagingAccess.close();
            } catch (RuntimeException e) {
                LOG.warn("session {}: revoking the staging grant failed", s.id, e);
            }
        }
        if (returnStaging) {
            returnLease(s, s.staging);
            if (s.secondStaging != null) {
                returnLease(s, s.secondStaging);
            }
        }
        accounting.release(s.principal, s.stagingCharge);
        TerminalEvent event;
        synchronized (s) {
            event = new TerminalEvent(s.id, s.op, s.target, s.terminalReason == null ? TerminalReason.SHUTDOWN
                    : s.terminalReason, Optional.ofNullable(s.lastOutcome), s.bytesTransferred);
        }
        Telemetry t = telemetry;
        t.increment(Counter.SESSIONS_ENDED);
        if (event.reason() == TerminalReason.EXPIRED) {
            t.increment(Counter.SESSIONS_EXPIRED);
        } else if (event.reason() == TerminalReason.CANCELLED) {
            t.increment(Counter.SESSIONS_CANCELLED);
        }
        LOG.debug("session {} ended: {} {} reason {} outcome {} bytes {}", s.id, s.op, s.target, event.reason(),
                event.lastOutcome().map(Enum::name).orElse("none"), event.bytes());
        for (SessionTerminalListener listener : listeners) {
            try {
                listener.sessionEnded(event);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                LOG.warn("terminal listener {} failed for session {}; ignored", listener, s.id, e);
            }
        }
    }

    private static void returnLease(Session s, StagingLease lease) {
        try {
            if (!lease.release()) {
                LOG.warn("session {}: staging lease was already returned", s.id);
            }
        } catch (RuntimeException e) {
            LOG.warn("session {}: returning staging failed", s.id, e);
        }
    }

    private void markAll(TerminalReason reason) {
        List<Session> reapable = new ArrayList<>();
        List<Channel> channels = new ArrayList<>();
        for (Session s : sessions.values()) {
            synchronized (s) {
                if (s.state != SessionState.REAPING) {
                    s.markReapPending(reason);
                    s.recomputeEarliestDeadline();
                    if (!s.pinned()) {
                        reapable.add(s);
                        channels.add(s.channel);
                    }
                }
            }
        }
        // nothing holds these and they are marked: their channels go down together, not one grace after another
        ChannelCloser.closeAll(channels, settings.shutdownTimeoutMs());
        for (Session s : reapable) {
            reapIfUnpinned(s);
        }
        for (Session s : sessions.values()) {
            reapIfUnpinned(s); // a holder that let go meanwhile
        }
    }

    private int endSessionsWhere(java.util.function.Predicate<Session> which, String why) {
        List<Session> lost = new ArrayList<>();
        List<Channel> channels = new ArrayList<>();
        for (Session s : sessions.values()) {
            if (!which.test(s)) {
                continue;
            }
            synchronized (s) {
                if (s.state == SessionState.REAPING) {
                    continue;
                }
                s.transportLost = true;
                if (s.lastOutcome != ReadyOutcome.OK) {
                    // bytes that already moved stay moved: a completed data phase keeps its OK outcome
                    s.lastOutcome = ReadyOutcome.WIRE_FAIL;
                }
                s.markReapPending(TerminalReason.TRANSPORT_LOST);
                s.recomputeEarliestDeadline();
                channels.add(s.channel);
            }
            lost.add(s);
        }
        // closing now makes a running data phase fail at once instead of waiting out its deadline; all together,
        // so that peers that no longer answer cost one close grace, not one per session
        ChannelCloser.closeAll(channels, settings.shutdownTimeoutMs());
        for (Session s : lost) {
            reapIfUnpinned(s);
        }
        int ended = lost.size();
        if (ended > 0) {
            LOG.warn("{}: {} session(s) end with a wire failure", why, ended);
        }
        return ended;
    }

    /**
     * Stops admissions, ends every session and waits up to {@code timeout} for them to drain (holders
     * returning leases, data phases finishing). Whatever is still held then is torn down by force and
     * reported: its channel is closed; its staging goes back to the pool only if no lease or view of it
     * is still out (a holder may still be writing into it); limits are released; the terminal
     * notification fires. Idempotent.
     */
    public ShutdownReport shutdown(Duration timeout) {
        closing = true;
        stopReaper();
        int atStart = sessions.size();
        long deadline = System.nanoTime() + timeout.toNanos();
        markAll(TerminalReason.SHUTDOWN);
        while ((!sessions.isEmpty() || !endingNow.isEmpty()) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(Math.max(1, Math.min(20, (deadline - System.nanoTime()) / 1_000_000)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            reapPass();
            markAll(TerminalReason.SHUTDOWN); // sessions a racing PREPARE published after the first mark
        }
        List<String> abandoned = new ArrayList<>();
        List<Channel> held = new ArrayList<>();
        for (Session s : sessions.values()) {
            held.add(s.channel);
        }
        // a data phase that still runs fails at once; all channels together (see markAll)
        ChannelCloser.closeAll(held, settings.shutdownTimeoutMs());
        for (Session s : sessions.values()) {
            String line = abandon(s);
            if (line != null) {
                abandoned.add(line);
            }
        }
        for (Session s : endingNow) {
            // claimed by another thread whose teardown (a transport's close) outlived the timeout: it still
            // notifies when it finishes, but the caller may unbind the listeners first; say so
            abandoned.add(s.id + " (teardown still running on another thread)");
        }
        if (!abandoned.isEmpty()) {
            LOG.warn("session manager shutdown: {} session(s) still held after {} ms, torn down by force: {}",
                    abandoned.size(), timeout.toMillis(), abandoned);
        }
        return new ShutdownReport(atStart, Math.max(0, atStart - abandoned.size()), abandoned);
    }

    private String abandon(Session s) {
        Channel channel;
        boolean returnStaging;
        String holders;
        synchronized (s) {
            if (s.state == SessionState.REAPING) {
                return null;
            }
            List<String> held = new ArrayList<>();
            if (s.stagingNonce != 0) {
                held.add("staging lease " + s.stagingNonce + " not returned");
            }
            if (s.putViewNonce != 0) {
                held.add("put view " + s.putViewNonce + " not returned");
            }
            if (s.activeRef != 0) {
                held.add(s.state == SessionState.TRANSFERRING ? "READY data phase still running"
                        : "completion reference not finalized");
            }
            returnStaging = s.stagingNonce == 0 && s.putViewNonce == 0;
            if (!returnStaging) {
                held.add("staging left with its holder");
            }
            holders = String.join(", ", held);
            s.markReapPending(TerminalReason.SHUTDOWN);
            s.state = SessionState.REAPING;
            s.releaseSlot();
            channel = s.channel;
        }
        endTracked(s, channel, returnStaging);
        return s.id + " (" + holders + ")";
    }

    /** True once {@link #shutdown} began: PREPARE and READY answer SHUTDOWN. */
    public boolean isClosing() {
        return closing;
    }
}
