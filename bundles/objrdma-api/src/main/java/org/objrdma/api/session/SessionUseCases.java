package org.objrdma.api.session;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The hipobj-rc-v2 routes as use cases, beside the {@code rc_server_abi.h}-shaped calls of {@link SessionManager}:
 * one call per route, each running the ABI calls of its route in the order the contract fixes (stage slot, staging
 * lease, commit or abort; READY slot, data phase, finalizer) and giving back everything it took on any failure. The
 * caller keeps routing, authentication and header parsing; the object store reaches the session only through the
 * {@link StagingSource} of a GET (given at PREPARE, kept by the session for the chunks a large GET's READY stages)
 * and the {@link ObjectAccess} of a READY.
 *
 * @since 2.3
 */
@ProviderType
public interface SessionUseCases {

    /**
     * PREPARE of a GET: the session, its range (or the first chunk of a range larger than one staging buffer) read
     * from {@code source} at {@link PrepareRequest#offset()} into staging under a stage slot, then published. The
     * session keeps {@code source} for the later chunks its READY stages. Any failure ends the session again.
     */
    PrepareResult prepareGet(PrepareRequest request, StagingSource source);

    /** PREPARE of a PUT: the session with its staging window granted to the client, published. */
    PrepareResult preparePut(PrepareRequest request);

    /**
     * READY: checks the session is the principal's, asks {@code access} whether the principal may still reach its
     * target (no: the session is cancelled), runs the data phase, then finalizes: a GET returns its completion
     * reference, a PUT's received bytes go to {@link ObjectAccess#store} and are committed or aborted by its outcome.
     */
    ReadyResult ready(ReadyRequest request, ObjectAccess access);
}
