package org.objrdma.api.staging;

import java.time.Duration;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.transport.Transport;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Lends registered, page-aligned off-heap buffers for the data phase of a transfer.
 *
 * <p>The pool owns every buffer and its registration; a borrower holds a {@link StagingLease}, never the
 * buffer. It keeps registrations per live transport: a lease stays valid while its transport is there,
 * even after a better-ranked transport appeared; only that transport's removal retires its buffers.
 * Limits (total bytes, bytes per principal, buffers per size class, buffers per principal and size
 * class) are charged at borrow and released at return. When a size class is exhausted a borrow may be
 * served from the next larger class.
 */
@ProviderType
public interface StagingPool {

    /**
     * Borrows a buffer of at least {@code size} bytes for {@code principal}, waiting up to the
     * configured borrow wait when a limit is reached.
     *
     * @param size       bytes needed, 1 to {@link #maxBufferSize()}
     * @param principal  whom the bytes are charged to
     * @param holderHint who holds the lease (a session id), reported if the lease is held too long
     * @throws StagingException LIMIT when a limit stayed reached for the whole wait, INVALID_SIZE,
     *         NO_TRANSPORT, CLOSED, REGISTRATION_FAILED
     */
    StagingLease borrow(long size, PrincipalId principal, String holderHint) throws StagingException;

    /** As {@link #borrow(long, PrincipalId, String)} with an explicit wait instead of the configured one. */
    StagingLease borrow(long size, PrincipalId principal, String holderHint, Duration maxWait)
            throws StagingException;

    /**
     * As {@link #borrow(long, PrincipalId, String, Duration)}, registered with {@code on} rather than the
     * pool's preferred transport: a consumer that chose its transport (a session and its channel) gets a
     * lease on the same one, whatever the pool prefers at that moment. A transport the pool was not bound
     * to yet is taken up for it.
     *
     * @throws StagingException as the other borrows; NO_TRANSPORT if {@code on} already went away from the pool
     * @since 1.1
     */
    StagingLease borrow(long size, PrincipalId principal, String holderHint, Duration maxWait, Transport on)
            throws StagingException;

    /**
     * Borrows an unpooled buffer of exactly {@code size} bytes, registered with {@code on}, for a consumer that
     * needs one contiguous region larger than {@link #maxBufferSize()} (an RC PUT session: the client writes the
     * whole object into one window). It is allocated for this lease and freed (deregistered, then released) when
     * the lease is returned; it is charged against the byte limits like any lease (total and per principal, its
     * exact size), never waits for room, and counts in {@link #stats()}.
     *
     * @param size bytes, 1 to {@link Integer#MAX_VALUE}
     * @throws StagingException LIMIT at once when a byte limit has no room (the message names it), INVALID_SIZE,
     *         NO_TRANSPORT, CLOSED, REGISTRATION_FAILED (also when the memory cannot be allocated); a pool without
     *         dedicated buffers answers INVALID_SIZE
     * @since 1.2
     */
    default StagingLease borrowDedicated(long size, PrincipalId principal, String holderHint, Transport on)
            throws StagingException {
        throw new StagingException(StagingStatus.INVALID_SIZE, "this staging pool lends no dedicated buffers");
    }

    /** Largest size one lease may have. */
    long maxBufferSize();

    /** A consistent snapshot of the pool's counters. */
    StagingStats stats();
}
