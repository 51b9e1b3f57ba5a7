package org.objrdma.session.internal;

import java.util.concurrent.atomic.AtomicLong;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.StagingSource;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Latency;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code rc_ready_transfer}: takes a READY slot, claims the session ({@link Session#claimForReady}), runs the data
 * phase outside the session's monitor (one RDMA WRITE, the armed receive of a PUT, or a chunked GET), and hands
 * the outcome back to the session; a Busy phase resets the channel so READY may be retried.
 */
final class ReadyCommand {
    private static final Logger LOG = LoggerFactory.getLogger(ReadyCommand.class);

    private final SessionSettings settings;
    private final CoreBindings bindings;
    private final SessionTable table;
    private final SlotCounter readySlots;
    private final AtomicLong workRequestIds;

    ReadyCommand(SessionSettings settings, CoreBindings bindings, SessionTable table, SlotCounter readySlots,
                 AtomicLong workRequestIds) {
        this.settings = settings;
        this.bindings = bindings;
        this.table = table;
        this.readySlots = readySlots;
        this.workRequestIds = workRequestIds;
    }

    /**
     * {@code rest}: where a chunked GET's later chunks come from; null for every other session, and for a GET
     * prepared through the use cases (its session kept the source PREPARE was given).
     */
    SessionResult<ReadyResponse> run(ReadyRequest request, StagingSource rest) {
        if (request == null) {
            return SessionResult.failed(RcStatus.ARG);
        }
        if (bindings.closing()) {
            return SessionResult.failed(RcStatus.SHUTDOWN);
        }
        if (!readySlots.tryAcquire()) {
            return SessionResult.failed(RcStatus.LIMIT);
        }
        try {
            return runHoldingSlot(request, rest);
        } finally {
            readySlots.release();
        }
    }

    private SessionResult<ReadyResponse> runHoldingSlot(ReadyRequest request, StagingSource rest) {
        long readyStart = System.nanoTime();
        Session s = table.get(request.sessionId());
        if (s == null) {
            return SessionResult.failed(RcStatus.NO_SESSION);
        }
        StagingSource source = rest != null ? rest : s.source();
        ReadyStart start = table.withSession(request.sessionId(), ReadyStart.refused(RcStatus.NO_SESSION),
                (session, now) -> session.claimForReady(request, source != null, now, settings.execTimeoutMs(),
                        workRequestIds.incrementAndGet()));
        if (start.refusal() != null) {
            return SessionResult.failed(start.refusal());
        }
        ReadyStart.Claim claim = start.claim();
        long dataStart = System.nanoTime();
        DataPhaseResult result;
        try {
            result = dataPhase(s, claim, source);
        } catch (RuntimeException e) {
            // a transport that throws instead of reporting a status must not leave the session claimed forever
            LOG.warn("session {}: transport {} threw during the data phase", s.id, s.plan.transport().name(), e);
            result = DataPhaseResult.of(ReadyOutcome.WIRE_FAIL, "transport threw " + e);
        }
        Telemetry t = bindings.telemetry();
        t.record(Latency.SESSION_DATA_PHASE, System.nanoTime() - dataStart);
        try {
            return result.outcome() == ReadyOutcome.BUSY ? rollBackBusy(s, claim, result) : end(s, result);
        } finally {
            // a READY refused before it claimed its session is not timed: its answer says nothing of the data path
            t.record(Latency.SESSION_READY, System.nanoTime() - readyStart);
        }
    }

    private DataPhaseResult dataPhase(Session s, ReadyStart.Claim claim, StagingSource rest) {
        if (claim.remote() == null) {
            return DataPhaseResult.nothingMoved(); // control-plane only (a test mode): OK, and 0 bytes, honestly
        }
        if (s.plan.armedReceive() != null) {
            return DataPhase.awaitArmedPut(s.plan.armedReceive(), s.plan.armedWrId(), s.plan.cookie(), s.plan.size(), settings.execTimeoutMs());
        }
        if (s.plan.chunked()) {
            return ChunkedGetPhase.run(claim.channel(), claim.remote(), chunkPlan(s, claim), rest,
                    claim.clientRegion(), s.plan.cookie(), workRequestIds::incrementAndGet, settings.execTimeoutMs(),
                    settings.dialPacing());
        }
        return DataPhase.run(claim.channel(), claim.remote(), s.plan.op(),
                new ScatterGatherEntry(s.plan.staging().region(), s.plan.stagingOffset(), s.plan.size()), claim.clientRegion(),
                s.plan.cookie(), claim.wrId(), settings.execTimeoutMs(), settings.dialPacing());
    }

    private static ChunkedGetPhase.Plan chunkPlan(Session s, ReadyStart.Claim claim) {
        ScatterGatherEntry[] buffers = {
                new ScatterGatherEntry(s.plan.staging().region(), s.plan.stagingOffset(), s.plan.chunkBytes()),
                new ScatterGatherEntry(s.plan.secondStaging().region(), s.plan.secondStagingOffset(), s.plan.chunkBytes())};
        return new ChunkedGetPhase.Plan(buffers, s.plan.chunkBytes(), s.plan.size(), s.plan.offset(), claim.headStaged(), s.etag());
    }

    private SessionResult<ReadyResponse> end(Session s, DataPhaseResult result) {
        ReadyEnd end;
        synchronized (s) {
            end = s.endReady(result.outcome(), result.bytes(), table.millis(), settings.leaseTimeoutMs());
        }
        if (end.tornDown()) {
            return SessionResult.failed(RcStatus.WIRE, failedResponse(s, ReadyOutcome.WIRE_FAIL));
        }
        if (end.response() != null) {
            bindings.telemetry().increment(Counter.SESSIONS_READY_OK);
            return SessionResult.ok(end.response());
        }
        LOG.info("session {}: READY data phase failed: {} ({})", s.id, end.outcome(), result.detail());
        bindings.telemetry().increment(Counter.SESSIONS_READY_FAILED);
        table.reapIfUnpinned(s);
        return SessionResult.failed(RcStatus.WIRE, failedResponse(s, end.outcome()));
    }

    /** What a failed READY carries: the outcome (TIMEOUT → 504, VERIFY_FAIL / WIRE_FAIL → 502), no bytes. */
    private static ReadyResponse failedResponse(Session s, ReadyOutcome outcome) {
        return new ReadyResponse(0, s.plan.cookie(), outcome, "", "");
    }

    /**
     * Busy: the peer was not ready. The session goes back to PREPARED (still published) so the client may retry
     * READY; the prep deadline is re-armed. The channel is reset to INIT (verbs: the same queue pair through RESET,
     * as the C core re-arms it), so it keeps the endpoint PREPARE returned and the client retries against the
     * server endpoint it already has.
     */
    private SessionResult<ReadyResponse> rollBackBusy(Session s, ReadyStart.Claim claim, DataPhaseResult result) {
        synchronized (s) {
            s.busy();
        }
        bindings.telemetry().increment(Counter.SESSIONS_READY_BUSY);
        String rearmFailure = null;
        if (bindings.closing()) {
            rearmFailure = "session manager shutting down";
        } else if (s.plan.stagingAccess() != null && s.plan.stagingAccess().isChannelBound()) {
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
            retryable = s.rearmAfterBusy(rearmFailure == null, table.millis(), settings.prepTimeoutMs());
        }
        if (retryable) {
            LOG.debug("session {}: READY busy ({}); channel {} reset, READY may be retried", s.id,
                    result.detail(), claim.channel().id());
            return SessionResult.ok(new ReadyResponse(0, s.plan.cookie(), ReadyOutcome.BUSY, "", ""));
        }
        LOG.info("session {}: READY busy ({}) and not re-armed: {}", s.id, result.detail(),
                rearmFailure != null ? rearmFailure : "the session was cancelled, expired or lost its transport meanwhile");
        table.reapIfUnpinned(s);
        return SessionResult.failed(RcStatus.WIRE, failedResponse(s, ReadyOutcome.WIRE_FAIL));
    }
}
