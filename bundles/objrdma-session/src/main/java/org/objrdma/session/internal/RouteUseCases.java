package org.objrdma.session.internal;

import java.lang.foreign.MemorySegment;
import org.objrdma.api.session.ObjectAccess;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResult;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.ReadyResult;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionInfo;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.SessionUseCases;
import org.objrdma.api.session.StagingSource;

/**
 * The {@link SessionUseCases} of one session core: each hipobj-rc-v2 route as the ABI calls it makes, in the
 * contract's order, giving back what it took on any failure (a stage slot, a staging lease, an uncommitted session,
 * a put view). What the S3 routes did call by call before.
 */
final class RouteUseCases implements SessionUseCases {
    private final SessionCore core;
    private final SessionTable table;

    RouteUseCases(SessionCore core, SessionTable table) {
        this.core = core;
        this.table = table;
    }

    @Override
    public PrepareResult prepareGet(PrepareRequest request, StagingSource source) {
        if (request == null || request.op() != Op.GET || source == null) {
            return PrepareResult.refused(RcStatus.ARG, "PREPARE", "");
        }
        PrepareResult prepared = core.prepareWithReason(request);
        if (!prepared.isOk()) {
            return prepared;
        }
        SessionId id = prepared.response().sessionId();
        boolean committed = false;
        try {
            table.withSession(id, null, (s, now) -> {
                s.attachSource(source);
                return null;
            });
            PrepareResult refusal = stage(id, request, source);
            if (refusal != null) {
                return refusal;
            }
            RcStatus commit = core.finishPrepare(id, true);
            if (!commit.isOk()) {
                return PrepareResult.refused(commit, "PREPARE commit", "");
            }
            committed = true;
            return prepared;
        } finally {
            if (!committed) {
                core.finishPrepare(id, false);
            }
        }
    }

    /** Reads the range (or its first chunk) into the session's staging under a stage slot; null when staged. */
    private PrepareResult stage(SessionId id, PrepareRequest request, StagingSource source) {
        if (!core.tryAcquireStageSlot().isOk()) {
            return PrepareResult.refused(RcStatus.LIMIT, "staging", "org.objrdma.session max.stage.slots reached");
        }
        try {
            SessionResult<SessionBuffer> lease = core.borrowStaging(id);
            if (!lease.isOk()) {
                return PrepareResult.refused(lease.status(), "staging", "");
            }
            SessionBuffer b = lease.value();
            long n = Math.min(request.size(), b.buffer().byteSize());
            boolean ok = false;
            String etag = "";
            Exception failure = null;
            RcStatus finished = RcStatus.INTERNAL;
            try {
                etag = source.fill(request.offset(), b.buffer().asSlice(0, n));
                ok = true;
            } catch (Exception e) {
                failure = e;
            } finally {
                // the lease goes back whatever happened: a failed read aborts the session
                finished = core.finishStaging(id, b.handle(), ok, ok ? n : 0, ok ? etag : "", "");
            }
            if (failure != null) {
                return PrepareResult.sourceFailed(failure);
            }
            return finished.isOk() ? null : PrepareResult.refused(finished, "staging", "");
        } finally {
            core.releaseStageSlot();
        }
    }

    @Override
    public PrepareResult preparePut(PrepareRequest request) {
        if (request == null || request.op() != Op.PUT) {
            return PrepareResult.refused(RcStatus.ARG, "PREPARE", "");
        }
        PrepareResult prepared = core.prepareWithReason(request);
        if (!prepared.isOk()) {
            return prepared;
        }
        SessionId id = prepared.response().sessionId();
        RcStatus commit = core.finishPrepare(id, true);
        if (!commit.isOk()) {
            core.finishPrepare(id, false);
            return PrepareResult.refused(commit, "PREPARE commit", "");
        }
        return prepared;
    }

    @Override
    public ReadyResult ready(ReadyRequest request, ObjectAccess access) {
        if (request == null || access == null) {
            return ReadyResult.failed(RcStatus.ARG, "READY", null, null);
        }
        SessionResult<SessionInfo> found = core.sessionInfo(request.sessionId(), request.principal());
        if (!found.isOk()) {
            return ReadyResult.failed(found.status(), "READY", null, null); // op null: no session of this principal
        }
        SessionInfo session = found.value();
        Op op = session.op();
        boolean permitted;
        try {
            permitted = access.permits(session);
        } catch (Exception e) {
            core.cancel(request.sessionId(), request.principal());
            return new ReadyResult(RcStatus.INTERNAL, "READY", null, op, false, e);
        }
        if (!permitted) {
            core.cancel(request.sessionId(), request.principal());
            return new ReadyResult(RcStatus.SESSION, "READY", null, op, true, null);
        }
        // a PUT names no client memory at READY: the client writes into the staging window PREPARE answered
        ReadyRequest claim = op == Op.PUT && request.clientRegion() != null
                ? new ReadyRequest(request.principal(), request.sessionId(), request.cookie(), request.clientQpn(), null)
                : request;
        SessionResult<ReadyResponse> ready = core.readyTransfer(claim);
        if (!ready.isOk()) {
            return ReadyResult.failed(ready.status(), "READY", op, ready.failureDetail().orElse(null));
        }
        ReadyResponse moved = ready.value();
        if (moved.outcome() == ReadyOutcome.BUSY) {
            return ReadyResult.ok(op, moved);
        }
        if (op == Op.GET) {
            RcStatus finished = core.finishFinal(request.sessionId());
            return finished.isOk() ? ReadyResult.ok(op, moved) : ReadyResult.failed(finished, "READY finish", op, null);
        }
        return commitPut(request.sessionId(), session, moved, access);
    }

    /** PUT: the received bytes into the store; finishPut is the only finalizer once getPutData succeeded. */
    private ReadyResult commitPut(SessionId id, SessionInfo session, ReadyResponse moved, ObjectAccess access) {
        SessionResult<SessionBuffer> view = core.getPutData(id);
        if (!view.isOk()) {
            core.finishFinal(id);
            return ReadyResult.failed(view.status(), "PUT data", Op.PUT, null);
        }
        SessionBuffer b = view.value();
        MemorySegment bytes = b.buffer();
        boolean committed = false;
        String etag = "";
        try {
            etag = access.store(session, bytes);
            committed = true;
        } catch (Exception e) {
            return new ReadyResult(RcStatus.INTERNAL, "PUT commit", null, Op.PUT, false, e);
        } finally {
            core.finishPut(id, b.handle(), committed, etag, "");
        }
        return ReadyResult.ok(Op.PUT, new ReadyResponse(moved.bytesTransferred(), moved.cookieEcho(), ReadyOutcome.OK,
                etag == null ? "" : etag, ""));
    }
}
