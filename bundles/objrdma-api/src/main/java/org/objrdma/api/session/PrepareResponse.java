package org.objrdma.api.session;

import java.util.Objects;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.RemoteRegion;

/**
 * What PREPARE gives back ({@code rc_prepare_resp}).
 *
 * @param sessionId      the new session
 * @param serverEndpoint the server's queue pair (with its random PSN) or TCP channel, for the client's connect
 * @param stagingRegion  PUT: the grant of the session's staging slice the client writes into (address, length,
 *                       rkey), valid through the session's channel until the session ends; on TCP the address is an
 *                       opaque per-session base the transport maps back, on verbs the slice's virtual address (the
 *                       NIC needs it); GET: address 0, the slice's length and rkey 0 — a GET client is granted
 *                       nothing on the server and learns no server address
 */
public record PrepareResponse(SessionId sessionId, EndpointInfo serverEndpoint, RemoteRegion stagingRegion) {
    public PrepareResponse {
        Objects.requireNonNull(sessionId, "sessionId");
        Objects.requireNonNull(serverEndpoint, "serverEndpoint");
        Objects.requireNonNull(stagingRegion, "stagingRegion");
    }
}
