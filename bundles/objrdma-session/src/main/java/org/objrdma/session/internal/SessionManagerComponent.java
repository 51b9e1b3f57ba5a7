package org.objrdma.session.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.LeaseHandle;
import org.objrdma.api.session.ObjectAccess;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.PrepareResult;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.ReadyResult;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionInfo;
import org.objrdma.api.session.SessionLimits;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.SessionSnapshot;
import org.objrdma.api.session.SessionTerminalListener;
import org.objrdma.api.session.StagingSource;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Transport;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
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
 * The {@link SessionManager} service: a thin DS shell around {@link SessionCore}.
 *
 * <p>References: the {@link Transport} ({@code transport}) and the {@link StagingPool} are mandatory,
 * dynamic and greedy: a better-ranked one replaces the bound one for <em>new</em> sessions only. A greedy
 * replacement unbinds the old service without it having gone, so removals are learnt from a second
 * reference, {@code liveTransport} (every Transport service, unfiltered): only when a transport's service
 * is really gone do the sessions on it end with a wire failure. {@link Telemetry} is optional; every
 * {@link SessionTerminalListener} service is told about every session that ends.
 *
 * <p>A configuration change is checked first ({@link #modified}): a bad value is refused and changes nothing;
 * a valid one restarts the component: the old core shuts down (bounded by {@code shutdown.timeout.ms}) and a
 * new one starts.
 */
@Component(name = SessionManagerComponent.NAME, service = SessionManager.class, immediate = true)
@Designate(ocd = SessionConfiguration.class)
public final class SessionManagerComponent implements SessionManager {
    private static final Logger LOG = LoggerFactory.getLogger(SessionManagerComponent.class);
    /** Component name and configuration PID. */
    static final String NAME = "org.objrdma.session";

    // what DS bound; kept here because DS binds before activate and the core exists only from activate
    private Transport transport;
    private StagingPool stagingPool;
    private Telemetry telemetry;
    private final List<SessionTerminalListener> listeners = new ArrayList<>();
    private volatile SessionCore core;
    /**
     * Cores a configuration change replaced that are still shutting down (waiting for their sessions' holders):
     * a transport or pool that goes away meanwhile ends their sessions too, at once, rather than leaving them
     * to the shutdown's timeout.
     */
    private final java.util.concurrent.CopyOnWriteArrayList<SessionCore> retiring =
            new java.util.concurrent.CopyOnWriteArrayList<>();

    /** The settings part of the configuration the core runs with (see {@link #settingsText}). */
    private String activeSettings;

    @Activate
    void activate(SessionConfiguration config) {
        SessionSettings settings = settingsFrom(config);
        NodeFleet fleet = NodeFleet.parse(config.node_id(), config.nodes());
        activeSettings = settingsText(config);
        SessionCore created = new SessionCore(settings, MonotonicClock.system(), RandomSource.secure());
        created.useFleet(fleet);
        synchronized (this) {
            created.useTransport(transport);
            created.useStagingPool(stagingPool);
            created.useTelemetry(telemetry);
            listeners.forEach(created::addTerminalListener);
            created.startReaper();
            core = created;
        }
        String deprecated = settings.deprecatedStagingKeys();
        if (deprecated != null) {
            LOG.warn("{}", deprecated);
        }
        LOG.info("session manager active: {} sessions ({} per principal), {} queue pairs ({} per principal),"
                        + " prep {} ms, exec {} ms, lease {} ms, reaper every {} ms, transport {}, {}",
                settings.maxSessions(), settings.maxUserSessions(), settings.maxQps(),
                settings.maxUserQps(), settings.prepTimeoutMs(), settings.execTimeoutMs(),
                settings.leaseTimeoutMs(), settings.reaperPeriodMs(), transport == null ? "none" : transport.name(), fleet);
    }

    /**
     * A configuration change on the running component. A bad value is refused with one ERROR line naming the
     * property, and the core goes on with its settings. A change of {@code transport.target} alone needs
     * nothing here (DS rebinds the dynamic reference). Any other valid change restarts the core, with one
     * INFO line saying why: the limits and deadlines are fixed for the life of a core. The new core takes
     * every call at once; the old one shuts down as at a deactivation (its sessions end). The service
     * registration stays, so its users (the S3 gateway, the MBeans) keep their reference.
     */
    @Modified
    void modified(SessionConfiguration config) {
        try {
            settingsFrom(config);
            NodeFleet.parse(config.node_id(), config.nodes());
        } catch (IllegalArgumentException refused) {
            LOG.error("Configuration of {} refused, the session manager keeps its previous settings: {}", NAME,
                    refused.getMessage());
            return;
        }
        if (settingsText(config).equals(activeSettings)) {
            return;
        }
        LOG.info("Configuration of {} changed: the session manager restarts its core to apply it (limits and"
                + " deadlines are fixed for the life of a core; its live sessions end)", NAME);
        SessionCore old = core;
        if (old != null) {
            retiring.add(old);
        }
        try {
            activate(config); // the new core takes every new call from here on
            shutdown(old);
        } finally {
            retiring.remove(old);
        }
    }

    /** Every setting of {@code config}, as text, without {@code transport.target} (which DS applies itself). */
    static String settingsText(SessionConfiguration config) {
        return String.join("|", String.valueOf(config.max_sessions()), String.valueOf(config.max_user_sessions()),
                String.valueOf(config.max_staging_bytes()), String.valueOf(config.max_user_staging_bytes()),
                String.valueOf(config.max_qps()), String.valueOf(config.max_user_qps()),
                String.valueOf(config.prep_timeout_ms()), String.valueOf(config.exec_timeout_ms()),
                String.valueOf(config.max_ready_slots()), String.valueOf(config.max_stage_slots()),
                String.valueOf(config.reaper_period_ms()), String.valueOf(config.lease_timeout_ms()),
                String.valueOf(config.shutdown_timeout_ms()), config.dev_name(),
                String.valueOf(config.control_plane_only()), config.allow_addresses(), config.deny_addresses(),
                String.valueOf(config.dial_failure_delay_ms()), config.node_id(),
                config.nodes());
    }

    @Deactivate
    void deactivate() {
        shutdown(core);
    }

    private static void shutdown(SessionCore c) {
        if (c == null) {
            return;
        }
        ShutdownReport report = c.shutdown(Duration.ofMillis(c.settings().shutdownTimeoutMs()));
        if (report.clean()) {
            LOG.info("session manager stopped: {} live session(s) ended", report.liveAtStart());
        } else {
            LOG.warn("session manager stopped: {} of {} session(s) abandoned after {} ms: {}",
                    report.abandoned().size(), report.liveAtStart(), c.settings().shutdownTimeoutMs(),
                    report.abandoned());
        }
    }

    /** The validated settings of {@code config}; throws naming the first bad property. */
    static SessionSettings settingsFrom(SessionConfiguration config) {
        return SessionSettings.builder()
                .maxSessions(config.max_sessions())
                .maxUserSessions(config.max_user_sessions())
                .maxStagingBytes(config.max_staging_bytes())
                .maxUserStagingBytes(config.max_user_staging_bytes())
                .maxQps(config.max_qps())
                .maxUserQps(config.max_user_qps())
                .prepTimeoutMs(config.prep_timeout_ms())
                .execTimeoutMs(config.exec_timeout_ms())
                .maxReadySlots(config.max_ready_slots())
                .maxStageSlots(config.max_stage_slots())
                .reaperPeriodMs(config.reaper_period_ms())
                .leaseTimeoutMs(config.lease_timeout_ms())
                .shutdownTimeoutMs(config.shutdown_timeout_ms())
                .devName(config.dev_name())
                .controlPlaneOnly(config.control_plane_only())
                .allowAddresses(config.allow_addresses())
                .denyAddresses(config.deny_addresses())
                .dialFailureDelayMs(config.dial_failure_delay_ms())
                .build();
    }

    // ------------------------------------------------------------------ references

    @Reference(name = "transport", service = Transport.class, cardinality = ReferenceCardinality.MANDATORY,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindTransport(Transport t) {
        transport = t;
        if (core != null) {
            core.useTransport(t);
        }
    }

    synchronized void unbindTransport(Transport t) {
        // a greedy replacement binds the better one first, then unbinds t, which is still there and still
        // serves the sessions on it: only the choice for new sessions moves (liveTransport reports removals)
        if (transport == t) {
            transport = null;
            if (core != null) {
                core.useTransport(null);
            }
        }
    }

    /** Every transport service: bound only to learn which one is gone for good. */
    @Reference(name = "liveTransport", service = Transport.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC)
    void bindLiveTransport(Transport t) {
        // nothing: sessions open on the transport the transport reference chose
    }

    void unbindLiveTransport(Transport t) {
        for (SessionCore c : liveCores()) {
            c.transportGone(t); // its sessions end with a wire failure
        }
    }

    /** The running core and every core still shutting down after a configuration change. */
    private List<SessionCore> liveCores() {
        List<SessionCore> out = new ArrayList<>(retiring);
        SessionCore c;
        synchronized (this) {
            c = core;
        }
        if (c != null && !out.contains(c)) {
            out.add(c);
        }
        return out;
    }

    @Reference(name = "stagingPool", service = StagingPool.class, cardinality = ReferenceCardinality.MANDATORY,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindStagingPool(StagingPool pool) {
        stagingPool = pool;
        if (core != null) {
            core.useStagingPool(pool);
        }
    }

    synchronized void unbindStagingPool(StagingPool pool) {
        // as for transports: a replacement moves only new sessions; livePool reports a pool that is gone
        if (stagingPool == pool) {
            stagingPool = null;
            if (core != null) {
                core.useStagingPool(null);
            }
        }
    }

    /** Every staging pool service: bound only to learn which one is gone for good. */
    @Reference(name = "livePool", service = StagingPool.class, cardinality = ReferenceCardinality.MULTIPLE,
            policy = ReferencePolicy.DYNAMIC)
    void bindLivePool(StagingPool pool) {
        // nothing: sessions borrow from the pool the stagingPool reference chose
    }

    void unbindLivePool(StagingPool pool) {
        for (SessionCore c : liveCores()) {
            c.stagingPoolGone(pool); // sessions holding its buffers end as after a transport loss
        }
    }

    @Reference(name = "telemetry", service = Telemetry.class, cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    synchronized void bindTelemetry(Telemetry t) {
        telemetry = t;
        if (core != null) {
            core.useTelemetry(t);
        }
    }

    synchronized void unbindTelemetry(Telemetry t) {
        if (telemetry == t) {
            telemetry = null;
            if (core != null) {
                core.useTelemetry(null);
            }
        }
    }

    @Reference(name = "terminalListener", service = SessionTerminalListener.class,
            cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    synchronized void bindTerminalListener(SessionTerminalListener listener) {
        listeners.add(listener);
        if (core != null) {
            core.addTerminalListener(listener);
        }
    }

    synchronized void unbindTerminalListener(SessionTerminalListener listener) {
        listeners.remove(listener);
        if (core != null) {
            core.removeTerminalListener(listener);
        }
    }

    // ------------------------------------------------------------------ SessionManager

    @Override
    public PrepareResult prepareGet(PrepareRequest request, StagingSource source) {
        return core.prepareGet(request, source);
    }

    @Override
    public PrepareResult preparePut(PrepareRequest request) {
        return core.preparePut(request);
    }

    @Override
    public ReadyResult ready(ReadyRequest request, ObjectAccess access) {
        return core.ready(request, access);
    }

    @Override
    public SessionResult<PrepareResponse> prepare(PrepareRequest request) {
        return core.prepare(request);
    }

    @Override
    public RcStatus finishPrepare(SessionId sessionId, boolean committed) {
        return core.finishPrepare(sessionId, committed);
    }

    @Override
    public SessionResult<SessionBuffer> borrowStaging(SessionId sessionId) {
        return core.borrowStaging(sessionId);
    }

    @Override
    public RcStatus finishStaging(SessionId sessionId, LeaseHandle lease, boolean ok, long written, String etag,
                                  String versionId) {
        return core.finishStaging(sessionId, lease, ok, written, etag, versionId);
    }

    @Override
    public SessionResult<SessionInfo> sessionInfo(SessionId sessionId, PrincipalId who) {
        return core.sessionInfo(sessionId, who);
    }

    @Override
    public SessionResult<ReadyResponse> readyTransfer(ReadyRequest request) {
        return core.readyTransfer(request);
    }

    @Override
    public SessionResult<ReadyResponse> readyTransfer(ReadyRequest request, org.objrdma.api.session.StagingSource rest) {
        return core.readyTransfer(request, rest);
    }

    @Override
    public SessionResult<SessionBuffer> getPutData(SessionId sessionId) {
        return core.getPutData(sessionId);
    }

    @Override
    public RcStatus finishPut(SessionId sessionId, LeaseHandle view, boolean committed, String etag,
                              String versionId) {
        return core.finishPut(sessionId, view, committed, etag, versionId);
    }

    @Override
    public RcStatus finishFinal(SessionId sessionId) {
        return core.finishFinal(sessionId);
    }

    @Override
    public RcStatus cancel(SessionId sessionId, PrincipalId who) {
        return core.cancel(sessionId, who);
    }

    @Override
    public void cancelAll() {
        core.cancelAll();
    }

    @Override
    public RcStatus tryAcquireReadySlot() {
        return core.tryAcquireReadySlot();
    }

    @Override
    public void releaseReadySlot() {
        core.releaseReadySlot();
    }

    @Override
    public RcStatus tryAcquireStageSlot() {
        return core.tryAcquireStageSlot();
    }

    @Override
    public void releaseStageSlot() {
        core.releaseStageSlot();
    }

    @Override
    public List<SessionSnapshot> snapshot() {
        return core.snapshot();
    }

    @Override
    public SessionLimits limits() {
        return core.limits();
    }

    @Override
    public java.util.Optional<java.net.URI> foreignOwner(SessionId sessionId) {
        return core.foreignOwner(sessionId);
    }
}
