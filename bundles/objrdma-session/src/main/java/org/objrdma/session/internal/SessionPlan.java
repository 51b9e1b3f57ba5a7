package org.objrdma.session.internal;

import java.util.concurrent.CompletableFuture;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.wire.RemoteSlice;

/**
 * What PREPARE fixed for one session, for its whole life: the request's values and the resources it acquired.
 * Immutable; the session's changing state is {@link Session}'s.
 *
 * @param clientEndpoint       the client endpoint given at PREPARE (READY completes it); null for control-plane-only
 * @param preparedClientRegion GET: the client memory named at PREPARE; READY may name another
 * @param stagingOffset        where the lease's bytes start inside its registered region
 * @param secondStaging        a GET larger than one staging buffer: the second of its two chunk buffers
 *                             ({@code staging} is the first); null for every other session
 * @param secondStagingOffset  where {@code secondStaging}'s bytes start inside its registered region
 * @param chunkBytes           bytes per chunk of a chunked GET ({@link ChunkedGetPhase}); 0 when the range fits
 * @param channel              the session's one channel: a Busy READY resets it, so its endpoint stays PREPARE's
 * @param stagingAccess        PUT: the client's access to the staging slice (a grant on {@code channel}); else null
 * @param armedReceive         PUT on a transport that grants only once connected: the receive posted at PREPARE,
 *                             {@code channel} connected then; else null
 * @param armedWrId            the work request id of {@code armedReceive} (0 without one)
 */
record SessionPlan(long epoch, PrincipalId principal, Op op, String target, long offset, int size, int cookie,
                   int clientPsn, EndpointInfo clientEndpoint, RemoteRegion preparedClientRegion, long createdAtMillis,
                   Transport transport, StagingPool pool, StagingLease staging, long stagingOffset,
                   StagingLease secondStaging, long secondStagingOffset, int chunkBytes,
                   Channel channel, RemoteSlice stagingAccess, CompletableFuture<BatchResult> armedReceive,
                   long armedWrId) {

    /** A plan whose PUT staging (grant, armed receive) comes from {@code putStaging} (null for a GET). */
    static SessionPlan of(long epoch, PrincipalId principal, Op op, String target, long offset, int size, int cookie,
                          int clientPsn, EndpointInfo clientEndpoint, RemoteRegion preparedClientRegion,
                          long createdAtMillis, Transport transport, StagingPool pool, StagingLease staging,
                          long stagingOffset, StagingLease secondStaging, long secondStagingOffset, int chunkBytes,
                          Channel channel, PutStaging putStaging) {
        return new SessionPlan(epoch, principal, op, target, offset, size, cookie, clientPsn, clientEndpoint,
                preparedClientRegion, createdAtMillis, transport, pool, staging, stagingOffset, secondStaging,
                secondStagingOffset, chunkBytes, channel,
                putStaging == null ? null : putStaging.access(),
                putStaging == null ? null : putStaging.armedReceive(),
                putStaging == null ? 0 : putStaging.armedWrId());
    }

    /** Staging memory the session holds: the whole buffers lent (their size classes), not the size asked for. */
    long stagingBytesHeld() {
        return (staging == null ? 0 : staging.region().length())
                + (secondStaging == null ? 0 : secondStaging.region().length());
    }

    /** True for a GET larger than one staging buffer, moved in chunks at READY. */
    boolean chunked() {
        return chunkBytes != 0;
    }

    /** Bytes the gateway stages at PREPARE: the whole range, or a chunked GET's first chunk. */
    long stagedAtPrepare() {
        return chunked() ? chunkBytes : size;
    }

    /**
     * READY's arguments that only make sense against this session, checked after owner, state and cookie: the
     * client's queue pair, and a GET's client memory. True when they fit.
     */
    boolean fitsReadyArguments(ReadyRequest r) {
        if (clientEndpoint == null) {
            return true;
        }
        long qpn = r.clientQpn();
        if (qpn < 1 || qpn > clientEndpoint.maxQueueNumber()) {
            return false;
        }
        if (armedReceive != null && qpn != clientEndpoint.queueNumber()) {
            return false; // the channel was connected at PREPARE to the queue pair PREPARE named
        }
        return op != Op.GET || grantedRegion(r) != null;
    }

    /**
     * The client memory a GET session writes into: the session's size from the start READY names, else from the
     * start PREPARE named; one slice for one session whatever longer region either described. READY may name its
     * memory anew (hipObject's client declares it only there), but never outside what PREPARE declared: another
     * key, or a slice not inside the declared region, is null (refused, the session preserved). Null too when no
     * region was named or it is shorter than the session.
     */
    RemoteRegion grantedRegion(ReadyRequest r) {
        RemoteRegion declared = preparedClientRegion;
        RemoteRegion named = r.clientRegion() != null ? r.clientRegion() : declared;
        if (named == null || named.length() < size) {
            return null;
        }
        if (named != declared && declared != null
                && (named.rkey() != declared.rkey() || !declared.contains(named.address(), size))) {
            return null;
        }
        return named.slice(0, size);
    }

    /** The client endpoint completed with READY's queue pair (verbs) or channel (TCP); null without one. */
    EndpointInfo remoteFor(ReadyRequest r) {
        return clientEndpoint == null ? null : clientEndpoint.withQueue(r.clientQpn(), clientPsn);
    }
}
