package org.objrdma.staging.internal;

import java.time.Duration;

/**
 * Where the pool reports misuse of leases. Reports never change a lease: revoking one is the session
 * manager's decision, not the pool's.
 */
interface LeaseReports {

    /** {@code lease} has been held for {@code heldFor}, longer than {@code deadline}. Called once per lease. */
    void overdue(PooledLease lease, Duration heldFor, Duration deadline);

    /** {@code lease} was released a second time; the call was ignored. */
    void doubleReturn(PooledLease lease);

    /** {@code lease} was still out when the pool closed; its buffer stays allocated and registered. */
    void unreturnedAtShutdown(PooledLease lease);
}
