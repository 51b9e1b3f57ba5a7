package org.objrdma.api.session;

import java.util.Objects;
import java.util.Optional;

/**
 * A session is gone: fired exactly once per session, after its resources were released.
 *
 * @param sessionId   the session
 * @param op          GET or PUT
 * @param target      the canonical target
 * @param reason      why it ended
 * @param lastOutcome the last READY outcome, empty if READY never ran
 * @param bytes       bytes moved by the data phase
 */
public record TerminalEvent(SessionId sessionId, Op op, String target, TerminalReason reason,
                            Optional<ReadyOutcome> lastOutcome, long bytes) {
    public TerminalEvent {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(lastOutcome, "lastOutcome");
    }
}
