package org.objrdma.session.internal;

import java.util.Objects;
import org.objrdma.api.session.ReadyOutcome;

/**
 * How one READY data phase ended.
 *
 * @param outcome what READY reports and the terminal event remembers
 * @param bytes   bytes moved (the session size when OK, else 0)
 * @param detail  one line for the log: the completion status, the mismatch, or the refusal
 */
record DataPhaseResult(ReadyOutcome outcome, long bytes, String detail) {
    DataPhaseResult {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(detail, "detail");
    }

    static DataPhaseResult ok(long bytes) {
        return new DataPhaseResult(ReadyOutcome.OK, bytes, "ok");
    }

    /** A control-plane-only session: nothing moves, and the result says so (0 bytes). */
    static DataPhaseResult nothingMoved() {
        return new DataPhaseResult(ReadyOutcome.OK, 0, "control plane only: no data moved");
    }

    static DataPhaseResult of(ReadyOutcome outcome, String detail) {
        return new DataPhaseResult(outcome, 0, detail);
    }
}
