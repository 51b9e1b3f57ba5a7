package org.objrdma.staging.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.staging.StagingStatus;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Transport;
import org.objrdma.transport.common.Closer;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link StagingPool} service, PID {@code org.objrdma.staging}. It is active while a {@link Transport}
 * matching {@code transport.target} is there. Two references: {@code transport} (mandatory, greedy: the
 * best ranked, where borrows that name no transport register) and {@code liveTransport} (every transport
 * service, only to learn when one goes away). A better transport arriving changes only the preference;
 * a transport's leases and idle buffers stay valid until that transport's service is gone.
 *
 * <p>A configuration change ({@code @Modified}) is checked whole first: a bad value is refused with one ERROR
 * line naming the property, and the pool keeps its settings. A valid change of limits, waits, deadlines, idle
 * bounds, stack tracking or zeroing applies live to the running pool. A change of the size classes
 * ({@code min.buffer.size}, {@code max.buffer.size}) builds a new pool behind the same service: new borrows go
 * to it at once, and the previous pool is retired ({@link BufferPool#retire()}): its leases out keep working
 * and return to it, and it closes when the last one has. Either way one INFO line names what changed and
 * what was done; the service registration never changes.
 */
// immediate: a delayed component is disposed when its last user ungets it, which would close the pool
// under leases still out; and a bad configuration should fail at once, not at the first borrow
@Component(name = "org.objrdma.staging", service = StagingPool.class, immediate = true,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = StagingPoolConfig.class)
public final class StagingPoolComponent implements StagingPool {

    private static final Logger LOG = LoggerFactory.getLogger(StagingPoolComponent.class);

    private volatile Telemetry telemetry = Telemetry.NOOP;
    /** Guarded by this: the preferred transport, handed to the pool when it exists. */
    private Transport transport;
    private volatile BufferPool pool;
    /** Guarded by this: pools a size-class change replaced, until their last lease came back. */
    private final List<BufferPool> retired = new ArrayList<>();

    @Activate
    void activate(StagingPoolConfig config) {
        // throws IllegalArgumentException naming the bad property: DS then records the failed activation
        StagingSettings settings = StagingSettings.from(config);
        synchronized (this) {
            pool = BufferPool.create(settings, transport, () -> telemetry);
        }
        LOG.info("Staging pool active: classes {}..{} bytes, {} bytes in total, {} per principal, transport {}",
                settings.minBufferSize(), settings.maxBufferSize(), settings.maxTotalBytes(),
                settings.maxBytesPerPrincipal(), transportName());
    }

    @Modified
    void modified(StagingPoolConfig config) {
        StagingSettings next;
        try {
            next = StagingSettings.from(config);
        } catch (IllegalArgumentException e) {
            LOG.error("Configuration of org.objrdma.staging refused, the staging pool keeps its previous settings: {}",
                    e.getMessage());
            return;
        }
        synchronized (this) {
            BufferPool current = pool;
            StagingSettings previous = current.settings();
            String changed = StagingSettings.differences(previous, next);
            if (changed.isEmpty()) {
                return;
            }
            if (current.canReconfigure(next)) {
                current.reconfigure(next);
                LOG.info("Staging pool reconfigured live: {}", changed);
                return;
            }
            pool = BufferPool.create(next, transport, () -> telemetry);
            current.retire();
            retired.removeIf(p -> !p.isDraining());
            if (current.isDraining()) {
                retired.add(current);
            }
            LOG.info("Staging pool rebuilt behind the same service because its size classes changed ({}): new "
                    + "borrows use the new pool; {} lease(s) of the previous one return to it, which closes "
                    + "with the last", changed, current.stats().borrowed());
        }
    }

    @Deactivate
    void deactivate() {
        BufferPool p;
        List<BufferPool> draining;
        synchronized (this) {
            p = pool;
            draining = new ArrayList<>(retired);
            retired.clear();
        }
        // each shutdown is bounded by shutdown.timeout: what is still out is reported and freed on return.
        // Every pool is shut down even if one throws; the failure is thrown afterwards (SCR logs it).
        Closer.closeAll(p, Closer.all(draining));
    }

    @Reference(name = "transport", cardinality = ReferenceCardinality.MANDATORY, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindTransport(Transport t) {
        synchronized (this) {
            transport = t;
            if (pool != null) {
                pool.useTransport(t);
            }
        }
    }

    void unbindTransport(Transport t) {
        synchronized (this) {
            // a greedy replacement binds the better one before it unbinds the old: only the preference moves.
            // The old transport's leases stay valid; liveTransport tells when its service is really gone.
            if (transport == t) {
                transport = null;
                if (pool != null) {
                    pool.useTransport(null);
                }
            }
        }
    }

    /** Every transport service, filtered by nothing: bound only to learn which one went away. */
    @Reference(name = "liveTransport", service = Transport.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC)
    void bindLiveTransport(Transport t) {
        // nothing to do: a binding is made when a borrow first registers with t
    }

    void unbindLiveTransport(Transport t) {
        List<BufferPool> pools = new ArrayList<>();
        synchronized (this) {
            if (pool != null) {
                pools.add(pool);
            }
            pools.addAll(retired);
        }
        for (BufferPool p : pools) {
            p.transportGone(t); // its leases are void now, its idle buffers go
        }
    }

    @Reference(name = "telemetry", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindTelemetry(Telemetry t) {
        telemetry = t;
    }

    void unbindTelemetry(Telemetry t) {
        if (telemetry == t) {
            telemetry = Telemetry.NOOP;
        }
    }

    @Override
    public StagingLease borrow(long size, PrincipalId principal, String holderHint) throws StagingException {
        return onActive(p -> p.borrow(size, principal, holderHint));
    }

    @Override
    public StagingLease borrow(long size, PrincipalId principal, String holderHint, Duration maxWait)
            throws StagingException {
        return onActive(p -> p.borrow(size, principal, holderHint, maxWait));
    }

    /** One borrow from a pool. */
    private interface Borrow {
        StagingLease from(BufferPool p) throws StagingException;
    }

    /**
     * Borrows from the current pool; a borrow that a rebuild closed under it (CLOSED while it waited in the
     * retired pool's queue) is tried once more on the new pool, so a reconfiguration fails no borrower.
     */
    private StagingLease onActive(Borrow borrow) throws StagingException {
        BufferPool p = active();
        try {
            return borrow.from(p);
        } catch (StagingException e) {
            BufferPool now = pool;
            if (e.status() == StagingStatus.CLOSED && now != null && now != p) {
                return borrow.from(now);
            }
            throw e;
        }
    }

    @Override
    public StagingLease borrowDedicated(long size, PrincipalId principal, String holderHint, Transport on)
            throws StagingException {
        return active().borrowDedicated(size, principal, holderHint, on);
    }

    @Override
    public long maxBufferSize() {
        BufferPool p = pool;
        return p == null ? 0 : p.maxBufferSize();
    }

    @Override
    public StagingStats stats() {
        BufferPool p = pool;
        if (p == null) {
            return new StagingStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of());
        }
        return p.stats();
    }

    private BufferPool active() throws StagingException {
        BufferPool p = pool;
        if (p == null) {
            throw new StagingException(StagingStatus.CLOSED, "the staging pool is not active");
        }
        return p;
    }

    @Override
    public StagingLease borrow(long size, PrincipalId principal, String holderHint, Duration maxWait, Transport on)
            throws StagingException {
        return onActive(p -> p.borrow(size, principal, holderHint, maxWait, on));
    }

    /** The pool serving borrows now (tests). */
    BufferPool currentPool() {
        return pool;
    }

    private synchronized String transportName() {
        return transport == null ? "none" : transport.name();
    }
}
