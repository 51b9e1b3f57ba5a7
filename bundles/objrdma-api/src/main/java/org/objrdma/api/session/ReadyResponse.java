package org.objrdma.api.session;

import java.util.Objects;

/**
 * What READY gives back ({@code rc_ready_resp}); the outcome is returned with the call so a concurrent
 * READY cannot rewrite it. Every READY whose data phase ran returns one: with {@link RcStatus#OK} for
 * OK and BUSY, with {@link RcStatus#WIRE} (as {@link SessionResult#failureDetail()}) for TIMEOUT,
 * VERIFY_FAIL and WIRE_FAIL.
 *
 * @param bytesTransferred bytes moved (0 unless OK)
 * @param cookieEcho       the session's cookie
 * @param outcome          how the data phase ended: OK, BUSY (retry READY; a route answers 409), TIMEOUT
 *                         (504), VERIFY_FAIL or WIRE_FAIL (502)
 * @param etag             GET: the staged object's etag; PUT: empty until finish_put
 * @param versionId        GET: the staged object's version; may be empty
 */
public record ReadyResponse(long bytesTransferred, int cookieEcho, ReadyOutcome outcome, String etag,
                            String versionId) {
    public ReadyResponse {
        Objects.requireNonNull(outcome, "outcome");
        Objects.requireNonNull(etag, "etag");
        Objects.requireNonNull(versionId, "versionId");
    }
}
