package org.objrdma.api.session;

import java.time.Duration;
import java.util.Objects;

/**
 * One live session at one moment ({@code rc_session_snapshot}).
 *
 * @param sessionId    the session
 * @param op           GET or PUT
 * @param target       the canonical target
 * @param state        its state
 * @param reapPending  marked to end once nothing holds it
 * @param age          time since prepare
 * @param stagingBytes bytes of staging it holds: the whole buffer it was lent (its size class), not the
 *                     requested size
 */
public record SessionSnapshot(SessionId sessionId, Op op, String target, SessionState state, boolean reapPending,
                              Duration age, long stagingBytes) {
    public SessionSnapshot {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(age, "age");
    }

    /** The C core's state byte: the state code with {@link SessionState#REAP_PENDING_MARKER} when marked. */
    public int stateCode() {
        return state.code() | (reapPending ? SessionState.REAP_PENDING_MARKER : 0);
    }
}
