package org.objrdma.api.session;

import java.util.Objects;

/**
 * What a READY use case gave.
 *
 * @param status         OK (the bytes moved and were finalized, or the peer was busy: {@code response.outcome()}
 *                       BUSY, READY may be retried), or the failing call's status
 * @param step           the step that answered ({@code READY}, {@code READY finish}, {@code PUT data}), for messages
 * @param response       on OK the answer (a PUT's etag is the one {@link ObjectAccess#store} returned); on a failed
 *                       data phase the outcome (TIMEOUT, WIRE_FAIL, VERIFY_FAIL); else null
 * @param op             the session's operation when it was found, else null
 * @param accessRevoked  true when {@link ObjectAccess#permits} said no: the session was cancelled
 * @param storeFailure   the exception of {@link ObjectAccess} (permits or store), else null: the session was aborted
 * @since 2.3
 */
public record ReadyResult(RcStatus status, String step, ReadyResponse response, Op op, boolean accessRevoked,
                          Exception storeFailure) {
    public ReadyResult {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(step, "step");
        if (status.isOk() && response == null) {
            throw new IllegalArgumentException("an OK result needs a response");
        }
    }

    public static ReadyResult ok(Op op, ReadyResponse response) {
        return new ReadyResult(RcStatus.OK, "READY", Objects.requireNonNull(response, "response"), op, false, null);
    }

    public static ReadyResult failed(RcStatus status, String step, Op op, ReadyResponse detail) {
        return new ReadyResult(status, step, detail, op, false, null);
    }

    public boolean isOk() {
        return status.isOk();
    }
}
