package org.objrdma.client;

import java.util.Objects;
import org.objrdma.api.transport.WcStatus;

/**
 * How the client's side of a hipobj-rc-v2 data phase ended.
 *
 * @param ok     true if the bytes moved and every check passed
 * @param bytes  bytes moved (0 unless ok)
 * @param status the completion status ({@link WcStatus#SUCCESS} when ok; {@link WcStatus#RESP_TIMEOUT_ERR} if
 *               nothing completed in time; {@link WcStatus#GENERAL_ERR} when a check failed)
 * @param detail what went wrong, empty when ok
 */
public record RcOutcome(boolean ok, long bytes, WcStatus status, String detail) {
    public RcOutcome {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(detail, "detail");
    }

    static RcOutcome success(long bytes) {
        return new RcOutcome(true, bytes, WcStatus.SUCCESS, "");
    }

    static RcOutcome failure(WcStatus status, String detail) {
        return new RcOutcome(false, 0, status, detail);
    }
}
