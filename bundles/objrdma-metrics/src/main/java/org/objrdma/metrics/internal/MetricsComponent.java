package org.objrdma.metrics.internal;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.servlet.Servlet;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.telemetry.TelemetryView;
import org.objrdma.api.transport.Transport;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.FieldOption;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.http.whiteboard.HttpWhiteboardConstants;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Prometheus scrape endpoint, PID {@code org.objrdma.metrics}. Owns one {@link PrometheusMeterRegistry}
 * with {@link ObjrdmaMeters} over the services it binds (each optional: a missing one reads NaN), and
 * registers a {@link MetricsServlet} on the HTTP Whiteboard at {@code path} while {@code enabled}. A change of
 * either is applied live (the servlet moves or goes, the registry stays); a bad value is refused with one
 * ERROR line naming the property and the endpoint keeps serving as before.
 */
@Component(name = MetricsSettings.PID, service = {}, immediate = true, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = MetricsConfig.class)
public final class MetricsComponent implements MetricSources {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsComponent.class);

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile TelemetryView telemetry;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile StagingPool staging;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile SessionManager sessions;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            fieldOption = FieldOption.UPDATE)
    private final List<Transport> transports = new CopyOnWriteArrayList<>();

    private BundleContext context;
    private PrometheusMeterRegistry registry;
    private MetricsServlet servlet;
    /** Guarded by this. */
    private MetricsSettings settings;
    /** Guarded by this: the servlet's registration while enabled. */
    private ServiceRegistration<Servlet> registration;

    @Activate
    void activate(BundleContext bundleContext, MetricsConfig config) {
        // throws IllegalArgumentException naming the bad property: DS records the failed activation
        MetricsSettings s = MetricsSettings.from(config);
        context = bundleContext;
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        servlet = new MetricsServlet(new ObjrdmaMeters(registry, this), registry);
        synchronized (this) {
            settings = s;
            publish();
        }
        LOG.info("Prometheus endpoint {}", describe(s));
    }

    @Modified
    void modified(MetricsConfig config) {
        MetricsSettings next;
        try {
            next = MetricsSettings.from(config);
        } catch (IllegalArgumentException e) {
            synchronized (this) {
                LOG.error("Configuration of {} refused, the endpoint keeps its previous settings ({}): {}",
                        MetricsSettings.PID, describe(settings), e.getMessage());
            }
            return;
        }
        synchronized (this) {
            if (next.equals(settings)) {
                return;
            }
            MetricsSettings previous = settings;
            withdraw();
            settings = next;
            publish();
            LOG.info("Prometheus endpoint changed live: {} (was {})", describe(next), describe(previous));
        }
    }

    @Deactivate
    void deactivate() {
        synchronized (this) {
            withdraw();
        }
        registry.close();
    }

    /** The servlet's registration properties, or nothing served while disabled. Called holding this. */
    private void publish() {
        servlet.access(settings);
        if (!settings.enabled()) {
            return;
        }
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(HttpWhiteboardConstants.HTTP_WHITEBOARD_SERVLET_PATTERN, settings.path());
        props.put(HttpWhiteboardConstants.HTTP_WHITEBOARD_SERVLET_NAME, "objrdma-metrics");
        registration = context.registerService(Servlet.class, servlet, props);
    }

    /** Called holding this. */
    private void withdraw() {
        if (registration != null) {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the bundle is stopping and the framework took it already
            }
            registration = null;
        }
    }

    private static String describe(MetricsSettings s) {
        // MetricsSettings.toString never shows the token
        return s.enabled() ? "serving at " + s : "disabled (path " + s + ")";
    }

    @Override
    public TelemetryView telemetry() {
        return telemetry;
    }

    @Override
    public StagingPool staging() {
        return staging;
    }

    @Override
    public SessionManager sessions() {
        return sessions;
    }

    @Override
    public Collection<Transport> transports() {
        return transports;
    }
}
