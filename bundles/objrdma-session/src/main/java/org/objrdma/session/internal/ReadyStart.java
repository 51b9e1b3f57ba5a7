package org.objrdma.session.internal;

import org.objrdma.api.session.RcStatus;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.RemoteRegion;

/**
 * What READY's claim of a session answered: a refusal (the session unchanged) or the claim the data phase runs on,
 * taken under the session's monitor so the phase itself runs outside it.
 *
 * @param refusal the status to answer, null when claimed
 * @param claim   what the data phase uses, null when refused
 */
record ReadyStart(RcStatus refusal, Claim claim) {

    /**
     * @param channel      the session's channel
     * @param remote       the client endpoint completed with READY's queue pair; null for a control-plane-only session
     * @param clientRegion the client memory a GET writes into (null for a PUT)
     * @param wrId         the work request id of this data phase
     * @param headStaged   chunked GET: the first buffer still holds the first chunk staged at PREPARE
     */
    record Claim(Channel channel, EndpointInfo remote, RemoteRegion clientRegion, long wrId, boolean headStaged) {
    }

    static ReadyStart refused(RcStatus status) {
        return new ReadyStart(status, null);
    }

    static ReadyStart claimed(Claim claim) {
        return new ReadyStart(null, claim);
    }
}
