package org.objrdma.session.internal;

import org.objrdma.api.session.LeaseHandle;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionResult;

/**
 * The calls after a successful READY: {@code rc_get_put_data} (the completion reference becomes a put view the store
 * reads the object from), {@code rc_finish_put} (the store committed it, or not) and {@code rc_finish_final} (a GET,
 * or a PUT without a put view, returns the completion reference). Each is one transition of {@link Session} run
 * through {@link SessionTable#withSession}.
 */
final class PutFinalizers {
    private final SessionTable table;
    private final long leaseTimeoutMs;

    PutFinalizers(SessionTable table, long leaseTimeoutMs) {
        this.table = table;
        this.leaseTimeoutMs = leaseTimeoutMs;
    }

    SessionResult<SessionBuffer> getPutData(SessionId sessionId) {
        if (sessionId == null) {
            return SessionResult.failed(RcStatus.ARG);
        }
        return table.withSession(sessionId, SessionResult.failed(RcStatus.NO_SESSION),
                (s, now) -> s.lendPutView(now, leaseTimeoutMs));
    }

    RcStatus finishPut(SessionId sessionId, LeaseHandle view, boolean committed, String etag, String versionId) {
        if (sessionId == null) {
            return RcStatus.ARG;
        }
        if (view == null) {
            return RcStatus.STALE;
        }
        String tag = etag == null ? "" : etag;
        String version = versionId == null ? "" : versionId;
        // "a redundant FinishPut after a commit is a no-op STALE": a gone session's view is stale
        return table.withSession(sessionId, RcStatus.STALE, (s, now) -> s.finishPut(view, committed, tag, version));
    }

    RcStatus finishFinal(SessionId sessionId) {
        if (sessionId == null) {
            return RcStatus.ARG;
        }
        return table.withSession(sessionId, RcStatus.NO_SESSION, (s, now) -> s.finishFinal());
    }
}
