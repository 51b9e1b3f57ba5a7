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
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link StagingPool} service, PID {@code org.objrdma.staging}. It is active while a {@link Transport}
 * matching {@code transport.target} is there. Two references: {@code transport} (mandatory, greedy: the
 * best ranked, where borrows that name no transport register) and {@code liveTransport} (every transport
 * service, only to learn when one goes away). A better transport arriving changes only the preference;
 * a transport's leases and idle buffers stay valid until that transport's service is gone. A
 * configuration change is checked first ({@link #modified}): a bad value is refused and changes nothing; a
 * valid one restarts the pool: the old one closes as {@link BufferPool#shutdown()} describes.
 */
// immediate: a delayed component is disposed when its last user ungets it, which would close the pool
// under leases still out; and a bad configuration should fail at once, not at the first borrow
@Component(name = StagingPoolComponent.NAME, service = StagingPool.class, immediate = true,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = StagingPoolConfig.class)
public final class StagingPoolComponent implements StagingPool {

    private static final Logger LOG = LoggerFactory.getLogger(StagingPoolComponent.class);
    /** Component name and configuration PID. */
    static final String NAME = "org.objrdma.staging";

    private volatile Telemetry telemetry = Telemetry.NOOP;
    /** Guarded by this: the preferred transport, handed to the pool when it exists. */
    private Transport transport;
    private volatile BufferPool pool;

    /** SCR's runtime, to restart this component after a valid configuration change (see {@link #modified}). */
    @Reference
    private ServiceComponentRuntime runtime;
    private Bundle bundle;
    /** The settings part of the configuration the pool runs with (see {@link #settingsText}). */
    private String activeSettings;

    @Activate
    void activateComponent(StagingPoolConfig config, BundleContext context) {
        bundle = context.getBundle();
        activate(config);
        activeSettings = settingsText(config);
    }

    /**
     * A configuration change on the running pool. A bad value is refused with one ERROR line naming the
     * property, and the pool goes on with its settings. A change of {@code transport.target} alone needs
     * nothing here (DS rebinds the dynamic reference). Any other valid change restarts the component, with
     * one INFO line saying why: the size classes and limits are fixed for the life of a pool, and only a
     * restart tells the session manager that the leases it holds are gone.
     */
    @Modified
    void modified(StagingPoolConfig config) {
        try {
            StagingSettings.from(config);
        } catch (IllegalArgumentException refused) {
            LOG.error("Configuration of {} refused, the staging pool keeps its previous settings: {}", NAME,
                    refused.getMessage());
            return;
        }
        ServiceComponentRuntime scr = runtime;
        if (settingsText(config).equals(activeSettings) || scr == null) {
            return;
        }
        LOG.info("Configuration of {} changed: the staging pool restarts to apply it (size classes and limits are"
                + " fixed for the life of a pool; its leases end)", NAME);
        // disable, and only once that is done enable again: the new activation reads the new configuration
        ComponentDescriptionDTO self = scr.getComponentDescriptionDTO(bundle, NAME);
        scr.disableComponent(self).onResolve(() -> scr.enableComponent(self));
    }

    /** Every setting of {@code config}, as text, without {@code transport.target} (which DS applies itself). */
    static String settingsText(StagingPoolConfig c) {
        return String.join("|", String.valueOf(c.min_buffer_size()), String.valueOf(c.max_buffer_size()),
                String.valueOf(c.max_total_bytes()), String.valueOf(c.max_bytes_per_principal()),
                String.valueOf(c.max_buffers_per_class()), String.valueOf(c.max_buffers_per_principal_per_class()),
                String.valueOf(c.idle_per_class()), String.valueOf(c.idle_timeout()), String.valueOf(c.borrow_wait()),
                String.valueOf(c.lease_deadline()), String.valueOf(c.lease_check_period()),
                String.valueOf(c.lease_trackStacks()), String.valueOf(c.shutdown_timeout()),
                String.valueOf(c.scrub_on_return()));
    }

    /** Activation without DS (the unit tests): no restart on a changed configuration. */
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
