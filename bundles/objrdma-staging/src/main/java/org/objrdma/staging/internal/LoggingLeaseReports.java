package org.objrdma.staging.internal;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports lease misuse as WARN lines that name the holder, in the manner of a leak detector: the borrow
 * site is printed as a stack trace when {@code lease.trackStacks} is on.
 */
final class LoggingLeaseReports implements LeaseReports {

    private static final Logger LOG = LoggerFactory.getLogger("org.objrdma.staging.leases");

    @Override
    public void overdue(PooledLease lease, Duration heldFor, Duration deadline) {
        LOG.warn("Staging lease held past its deadline of {} ms: holder={}, held {} ms, size={}, class={}, "
                        + "principal={}, borrowed at {}{}", deadline.toMillis(), lease.holderHint(),
                heldFor.toMillis(), lease.size(), lease.chargedBytes(), lease.principal(), lease.borrowedAt(),
                siteNote(lease), lease.borrowSite());
    }

    @Override
    public void doubleReturn(PooledLease lease) {
        LOG.warn("Staging lease released twice; the second release was ignored: holder={}, size={}, principal={}, "
                        + "borrowed at {}{}", lease.holderHint(), lease.size(), lease.principal(), lease.borrowedAt(),
                siteNote(lease), new Throwable("second release here"));
    }

    @Override
    public void unreturnedAtShutdown(PooledLease lease) {
        LOG.warn("Staging lease still out at shutdown; its buffer stays allocated and registered until it is "
                        + "released: holder={}, size={}, principal={}, borrowed at {}{}", lease.holderHint(),
                lease.size(), lease.principal(), lease.borrowedAt(), siteNote(lease), lease.borrowSite());
    }

    private static String siteNote(PooledLease lease) {
        return lease.borrowSite() == null ? " (set lease.trackStacks=true to record where leases are borrowed)" : "";
    }
}
