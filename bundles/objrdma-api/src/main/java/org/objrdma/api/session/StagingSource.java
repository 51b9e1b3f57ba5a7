package org.objrdma.api.session;

import java.lang.foreign.MemorySegment;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * Where a GET session larger than one staging buffer reads the rest of its range during READY: the session
 * manager stages the range chunk by chunk into its staging buffers (the first chunk was staged at PREPARE
 * through {@link SessionManager#borrowStaging}) while the previous chunk moves. Supplied by the caller that
 * owns the object store (the S3 routes).
 *
 * @since 2.2
 */
@ConsumerType
@FunctionalInterface
public interface StagingSource {

    /**
     * Fills all of {@code dst} with the object's bytes from {@code offset} on, in the coordinates of
     * {@link PrepareRequest#offset()} (the session's range starts at that offset; the source is asked only for
     * offsets inside the range).
     *
     * @return the etag of the object version read, in the form given to {@link SessionManager#finishStaging};
     *         the session fails when it is not the one staged at PREPARE (the object changed in between)
     * @throws Exception any failure, a short read included: the data phase fails (WIRE_FAIL)
     */
    String fill(long offset, MemorySegment dst) throws Exception;
}
