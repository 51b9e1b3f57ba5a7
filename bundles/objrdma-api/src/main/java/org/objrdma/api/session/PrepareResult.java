package org.objrdma.api.session;

import java.util.Objects;

/**
 * What a PREPARE use case gave.
 *
 * @param status        OK, or why it was refused (nothing is left of the session then)
 * @param response      the answer on OK, else null
 * @param step          the step that refused ({@code PREPARE}, {@code staging}, {@code PREPARE commit}), for messages
 * @param reason        on a refusal, which limit or check refused when the manager knows (e.g. a staging limit
 *                      named with its configuration property), else empty; never a secret
 * @param sourceFailure the exception of the {@link StagingSource} that failed while staging, else null
 * @since 2.3
 */
public record PrepareResult(RcStatus status, PrepareResponse response, String step, String reason,
                            Exception sourceFailure) {
    public PrepareResult {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(step, "step");
        Objects.requireNonNull(reason, "reason");
        if (status.isOk() != (response != null)) {
            throw new IllegalArgumentException("a response exactly when OK");
        }
    }

    public static PrepareResult ok(PrepareResponse response) {
        return new PrepareResult(RcStatus.OK, response, "PREPARE", "", null);
    }

    public static PrepareResult refused(RcStatus status, String step, String reason) {
        return new PrepareResult(status, null, step, reason, null);
    }

    public static PrepareResult sourceFailed(Exception failure) {
        return new PrepareResult(RcStatus.INTERNAL, null, "staging", "", Objects.requireNonNull(failure, "failure"));
    }

    public boolean isOk() {
        return status.isOk();
    }
}
