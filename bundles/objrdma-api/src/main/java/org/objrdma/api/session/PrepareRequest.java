package org.objrdma.api.session;

import java.util.Objects;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.RemoteRegion;

/**
 * PREPARE: create a session ({@code rc_prepare_req}).
 *
 * @param principal      who asks; later calls must come from the same principal
 * @param op             GET or PUT
 * @param target         canonical object target ({@code /bucket/key[?query]}), 1..2047 characters
 * @param offset         first byte of the object range
 * @param size           bytes, 1 to 2^31 - 1
 * @param clientPsn      the client's initial packet sequence number, 24 bits, not 0
 * @param cookie         the client's cookie, any 32-bit value (0 too: hipObject's client may send it); the immediate
 *                       value of the data phase
 * @param clientEndpoint the client's queue pair or TCP channel. Null is refused with {@link RcStatus#ARG}
 *                       unless the session manager is configured control-plane only (a test mode: no
 *                       data moves, READY reports 0 bytes, and a PUT can never be committed)
 * @param clientRegion   the client memory for GET data, or null if READY names it
 */
public record PrepareRequest(PrincipalId principal, Op op, String target, long offset, long size,
                             int clientPsn, int cookie, EndpointInfo clientEndpoint, RemoteRegion clientRegion) {
    public PrepareRequest {
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(target, "target");
    }
}
