package org.objrdma.api.staging;

import java.util.List;

/**
 * A snapshot of a staging pool.
 *
 * @param borrowed       leases out now
 * @param idle           buffers pooled and free
 * @param bytesBorrowed  bytes of the size classes lent out now
 * @param bytesAllocated bytes of every buffer the pool holds (lent and idle)
 * @param borrows        successful borrows since start
 * @param waits          borrows that had to wait for a limit
 * @param timeouts       borrows that failed with LIMIT after waiting
 * @param failures       borrows that failed for another reason
 * @param doubleReturns  second returns of a lease, detected and ignored
 * @param overdueLeases  leases reported as held past the deadline
 * @param classes        per size class
 */
public record StagingStats(long borrowed, long idle, long bytesBorrowed, long bytesAllocated,
                           long borrows, long waits, long timeouts, long failures,
                           long doubleReturns, long overdueLeases, List<SizeClass> classes) {
    public StagingStats {
        classes = List.copyOf(classes);
    }

    /**
     * One size class.
     *
     * @param bufferSize bytes per buffer, a power of two
     * @param borrowed   buffers lent out
     * @param idle       buffers pooled
     */
    public record SizeClass(long bufferSize, long borrowed, long idle) {
    }
}
