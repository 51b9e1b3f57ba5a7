package org.objrdma.api.session;

import java.util.Objects;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.transport.RemoteRegion;

/**
 * READY: connect and move the bytes ({@code rc_ready_req}).
 *
 * @param principal    must equal the preparer
 * @param sessionId    the session
 * @param cookie       must equal the cookie given at PREPARE
 * @param clientQpn    the client's queue pair number (verbs) or channel id (TCP), not 0; completes the
 *                     endpoint given at PREPARE
 * @param clientRegion the client memory a GET writes into; null to use the one given at PREPARE. The session's size
 *                     from its start is written, never more; with a PREPARE region it must lie inside that one
 *                     (same key), else {@link RcStatus#ARG} with the session preserved
 */
public record ReadyRequest(PrincipalId principal, SessionId sessionId, int cookie, long clientQpn,
                           RemoteRegion clientRegion) {
    public ReadyRequest {
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(sessionId, "sessionId");
    }
}
