package org.objrdma.api.session;

import java.net.URI;
import java.util.List;
import java.util.Optional;
import org.objrdma.api.PrincipalId;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The hipobj-rc-v2 RC session core: the calls of {@code rc_server_abi.h}, in Java.
 *
 * <p>The caller (the S3 routes) owns routing, authentication and the object store; the session manager
 * owns sessions, staging, channels, the data phase and the reaper. Every call returns a status; the
 * legal states and the order of checks follow the C core, and "preserve" errors
 * ({@link RcStatus#STATE}, {@link RcStatus#SESSION}) never change a session.
 *
 * <p>Differences from the C core: finish calls take the session id as well as the handle (no scan of
 * every session); leases have a deadline; the PSN is random; limits are validated at activation.
 *
 * <p>Finalizer rule: after a successful READY, a GET ends with exactly one {@link #finishFinal}; a PUT
 * with exactly one {@link #finishPut} after a successful {@link #getPutData} (committed or not), or
 * with {@link #finishFinal} if {@code getPutData} failed.
 */
@ProviderType
public interface SessionManager extends SessionUseCases {

    /**
     * Creates a session: checks arguments, charges limits, opens a channel, borrows staging (on the
     * transport the channel belongs to). {@link RcStatus#SHUTDOWN} once the manager is shutting down.
     */
    SessionResult<PrepareResponse> prepare(PrepareRequest request);

    /** Commits ({@code committed}) or aborts a prepared session. GET needs its data staged first. */
    RcStatus finishPrepare(SessionId sessionId, boolean committed);

    /**
     * Lends the staging buffer of a prepared GET session to fill with the object range. For a range larger
     * than one staging buffer the buffer lent is the first chunk of the range (its length says how much);
     * the rest is read at READY through a {@link StagingSource}.
     */
    SessionResult<SessionBuffer> borrowStaging(SessionId sessionId);

    /**
     * Returns the staging lease. {@code ok == false} aborts the session; {@code written} other than the lent
     * buffer's length (the size, or the first chunk's) gives
     * {@link RcStatus#SHORT} and aborts; an etag or version id above 127 characters gives TRUNC and aborts.
     */
    RcStatus finishStaging(SessionId sessionId, LeaseHandle lease, boolean ok, long written, String etag,
                           String versionId);

    /** Op and target for re-authorization. Owner mismatch answers {@link RcStatus#SESSION}. */
    SessionResult<SessionInfo> sessionInfo(SessionId sessionId, PrincipalId who);

    /**
     * Connects and runs the data phase; blocks until it ends or the exec deadline passes. OK carries
     * outcome OK or BUSY; a failed data phase answers {@link RcStatus#WIRE} with the response naming
     * TIMEOUT, VERIFY_FAIL or WIRE_FAIL ({@link SessionResult#failureDetail()}). {@link RcStatus#SHUTDOWN}
     * once the manager is shutting down.
     */
    SessionResult<ReadyResponse> readyTransfer(ReadyRequest request);

    /**
     * As {@link #readyTransfer(ReadyRequest)}, for a GET session whose range is larger than one staging
     * buffer: {@code rest} supplies the chunks after the first while the data phase runs (the chunked data
     * phase writes each chunk at its offset of the client's memory, the last one with the immediate). A chunked
     * GET READY without a source is ARG, the session preserved; sessions that fit one buffer ignore it.
     * The default ignores {@code rest}: a provider that never prepares chunked sessions needs none.
     *
     * @since 2.2
     */
    default SessionResult<ReadyResponse> readyTransfer(ReadyRequest request, StagingSource rest) {
        return readyTransfer(request);
    }

    /** Lends the received PUT bytes for commit; moves the completion reference to the view. */
    SessionResult<SessionBuffer> getPutData(SessionId sessionId);

    /** Returns the put view; the session then ends. Etag and version id are recorded when committed. */
    RcStatus finishPut(SessionId sessionId, LeaseHandle view, boolean committed, String etag, String versionId);

    /** Ends a session after its data phase (or after a failed getPutData). */
    RcStatus finishFinal(SessionId sessionId);

    /** The owner ends a session; a running data phase finishes first. */
    RcStatus cancel(SessionId sessionId, PrincipalId who);

    /** Marks every session for ending (shutdown). */
    void cancelAll();

    /** Takes a READY slot for gateway-side gating; {@link RcStatus#LIMIT} when none is free. */
    RcStatus tryAcquireReadySlot();

    void releaseReadySlot();

    /** Takes a stage slot (around a GET backend read); {@link RcStatus#LIMIT} when none is free. */
    RcStatus tryAcquireStageSlot();

    void releaseStageSlot();

    /** Every live session, copied at one moment. */
    List<SessionSnapshot> snapshot();

    /** The limits in force. */
    SessionLimits limits();

    /**
     * Where a session of another gateway lives: the advertised endpoint (scheme, host, port; no path) of the
     * node whose tag {@code sessionId} carries, when that is another node of this node's fleet. Empty when the
     * id is this node's, when no fleet is configured, or when the tag names no known node — the caller then
     * treats the id as local (so an unknown one answers as an unknown session). Since 2.1.0.
     */
    default Optional<URI> foreignOwner(SessionId sessionId) {
        return Optional.empty();
    }
}
