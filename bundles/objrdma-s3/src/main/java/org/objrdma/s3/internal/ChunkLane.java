package org.objrdma.s3.internal;

import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;

/**
 * Where the chunks of one transfer ({@link CuObjPipeline}) go to or come from in client memory: the cuObject
 * facade dialing the client's agent ({@link FacadeLane}), or the queue pair of a cuObject-over-RC connection
 * ({@link RcLane}). The pipeline owns the staging leases; the lane makes them usable on its wire and moves bytes.
 */
interface ChunkLane extends AutoCloseable {

    /** A staging buffer of {@code chunk} bytes the lane can move from (borrowed where the lane needs it). */
    StagingLease borrow(StagingPool pool, int chunk) throws StagingException;

    /** Makes {@code lease} slot {@code slot}'s buffer on this lane (a registration, or nothing to do). */
    void attach(int slot, StagingLease lease) throws CuObjPipeline.Unavailable;

    /**
     * Moves {@code n} bytes between slot {@code slot}'s buffer and client memory at {@code remoteOffset} from the
     * span's start: written to the client ({@code get}) or read from it. Blocks until the lane's own completion.
     *
     * @param status receives the completion status of a failure
     * @return the bytes moved, or a negative errno
     */
    long move(boolean get, int slot, long remoteOffset, int n, int[] status);

    /** Lets go of what {@link #attach} made (every move has ended); the pipeline releases the leases after. */
    @Override
    void close();
}
