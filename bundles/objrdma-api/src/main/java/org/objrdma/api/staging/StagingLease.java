package org.objrdma.api.staging;

import java.lang.foreign.MemorySegment;
import java.time.Instant;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.transport.MemoryRegion;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A consume-once loan of one staging buffer.
 *
 * <p>{@link #release()} returns the buffer exactly once; a second call is detected, reported by the
 * pool and changes nothing. After release the segment must not be touched.
 */
@ProviderType
public interface StagingLease extends AutoCloseable {

    /** The requested size. */
    long size();

    /** Exactly {@link #size()} bytes of the registered buffer, starting at its first byte. */
    MemorySegment segment();

    /**
     * The registration covering the whole buffer (its size class, possibly a larger class than the size
     * needs when the smaller one was exhausted), for work requests and peers. Its length is the staging
     * memory the lease holds.
     */
    MemoryRegion region();

    /** Whom the bytes are charged to. */
    PrincipalId principal();

    /** Who holds it (e.g. a session id), as given at borrow. */
    String holderHint();

    /** When it was borrowed. */
    Instant borrowedAt();

    /** True until the first {@link #release()}. */
    boolean isActive();

    /**
     * Returns the buffer to the pool.
     *
     * @return true for the first call, false (and a report) for any later call
     */
    boolean release();

    /** Same as {@link #release()}, for try-with-resources. */
    @Override
    default void close() {
        release();
    }
}
