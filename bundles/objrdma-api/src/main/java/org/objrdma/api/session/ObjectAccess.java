package org.objrdma.api.session;

import java.lang.foreign.MemorySegment;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * What a READY use case ({@link SessionUseCases#ready}) asks the object store: whether the principal may still
 * reach the session's target, and, for a PUT, to store the bytes the client wrote.
 *
 * @since 2.3
 */
@ConsumerType
public interface ObjectAccess {

    /** Whether the session's principal may still read (GET) or write (PUT) its target; false cancels the session. */
    boolean permits(SessionInfo session) throws Exception;

    /**
     * PUT: stores {@code bytes} (valid only during the call) as the session's target.
     *
     * @return the etag to answer, as the client sees it
     * @throws Exception the store's failure: the PUT is aborted and the failure is carried by the result
     */
    String store(SessionInfo session, MemorySegment bytes) throws Exception;
}
