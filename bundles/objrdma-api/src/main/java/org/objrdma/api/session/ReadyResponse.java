package org.objrdma.api.session;

import java.util.Objects;

/**
 * What READY gives back ({@code rc_ready_resp}); the outcome is returned with the call so a concurrent
 * READY cannot rewrite it.
 *
 * @param bytesTransferred bytes moved
 * @param cookieEcho       the session's cookie
 * @param outcome          how the data phase ended: OK, or BUSY (retry READY)
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
