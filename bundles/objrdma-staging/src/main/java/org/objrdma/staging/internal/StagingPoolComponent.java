package org.objrdma.staging.internal;

import java.time.Duration;
import java.util.List;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.staging.StagingStatus;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Transport;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
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
 * a transport's leases and idle buffers stay valid until that transport's service is gone. A
 * configuration change restarts the pool: the old one closes as {@link BufferPool#shutdown()} describes.
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

    @Deactivate
    void deactivate() {
        BufferPool p;
        synchronized (this) {
            p = pool;
        }
        if (p != null) {
            p.shutdown();
        }
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
        BufferPool p;
        synchronized (this) {
            p = pool;
        }
        if (p != null) {
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
        return active().borrow(size, principal, holderHint);
    }

    @Override
    public StagingLease borrow(long size, PrincipalId principal, String holderHint, Duration maxWait)
            throws StagingException {
        return active().borrow(size, principal, holderHint, maxWait);
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
        return active().borrow(size, principal, holderHint, maxWait, on);
    }

    private synchronized String transportName() {
        return transport == null ? "none" : transport.name();
    }
}
