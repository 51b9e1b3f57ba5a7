package org.objrdma.s3.internal.servlet;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import javax.servlet.Servlet;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.objrdma.api.store.ObjectStore;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.KeyedCounter;
import org.objrdma.api.telemetry.Latency;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.s3.S3Gateway;
import org.objrdma.s3.S3Settings;
import org.objrdma.api.transport.Transport;
import org.objrdma.s3.internal.RcConnectionTable;
import org.objrdma.s3.rdma.RcConnectionSettings;
import org.objrdma.s3.rdma.RdmaServices;
import org.objrdma.s3.rdma.RdmaSettings;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.cuobj.CuObjService;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.http.whiteboard.propertytypes.HttpWhiteboardServletPattern;
import org.osgi.service.metatype.annotations.Designate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The S3 gateway as a servlet on the OSGi HTTP Whiteboard, at the root of Pax Web's default context, so
 * port, TLS and thread pool are Pax Web's ({@code org.ops4j.pax.web}). Blocking I/O: each request streams
 * through a 64 KiB copy buffer (GET) or the store's own buffer (PUT), never a whole object on the heap.
 */
@Component(name = "org.objrdma.s3", service = Servlet.class, immediate = true,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@HttpWhiteboardServletPattern("/*")
@Designate(ocd = S3GatewayConfig.class)
public final class S3Servlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(S3Servlet.class);

    @Reference(name = "store")
    transient ObjectStore store;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private transient volatile Telemetry telemetry;

    // the RDMA paths' services: optional and dynamic, so the gateway serves plain S3 without them and
    // declines (cuObject) or answers 503 (hipobj-rc-v2) while one is absent
    @Reference(name = "sessions", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private transient volatile SessionManager sessions;

    @Reference(name = "staging", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private transient volatile StagingPool staging;

    @Reference(name = "cuObj", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private transient volatile CuObjService cuObj;

    // cuObject over RC: the connections outlive a reconfigured gateway; closed when the component stops
    private transient volatile Transport rcTransport;
    private transient RcConnectionTable rcConnections;

    @Reference(name = "rcTransport", service = Transport.class, cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY,
            target = "(objrdma.transport.endpoint.kind=verbs-rc)")
    void bindRcTransport(Transport t) {
        rcTransport = t;
    }

    void unbindRcTransport(Transport t) {
        if (rcTransport == t) {
            rcTransport = null;
        }
        RcConnectionTable table = rcConnections;
        if (table != null) {
            table.endAllOn(t);
        }
    }

    // replaced whole by a configuration change; a request in flight finishes on the one it started with
    private transient volatile S3Gateway gateway;

    @Activate
    void activate(S3GatewayConfig config) {
        S3Settings settings = settings(config);
        RdmaSettings rdmaSettings = rdmaSettings(config);
        rcConnections = new RcConnectionTable(() -> rcTransport, rcConnectionSettings(config));
        gateway = newGateway(settings, rdmaSettings);
        LOG.info("S3 gateway serving store '{}' at the HTTP Whiteboard root: region {}, {}", store.name(),
                settings.region(), settings.virtualHostDomain().isEmpty() ? "path style"
                        : "path and virtual-host style under " + settings.virtualHostDomain());
    }

    /**
     * Every property applies live: the whole configuration is checked first, and a bad value is refused with
     * one ERROR line naming it while the gateway keeps serving with its previous settings; a good one builds
     * a new gateway that the next request uses. (A {@code store.target} the bound store no longer matches
     * makes Declarative Services restart the component instead; this method is not called then.)
     */
    @Modified
    void modified(S3GatewayConfig config) {
        S3Settings settings;
        RdmaSettings rdmaSettings;
        RcConnectionSettings rcSettings;
        try {
            settings = settings(config);
            rdmaSettings = rdmaSettings(config);
            rcSettings = rcConnectionSettings(config);
        } catch (IllegalArgumentException e) {
            LOG.error("Configuration of org.objrdma.s3 refused, the gateway keeps its previous settings: {}",
                    e.getMessage());
            return;
        }
        S3Gateway previous = gateway;
        rcConnections.settings(rcSettings);
        gateway = newGateway(settings, rdmaSettings);
        LOG.info("org.objrdma.s3 reconfigured live: {} -> {}, {}", previous.settings(), settings, rdmaSettings);
    }

    private S3Gateway newGateway(S3Settings settings, RdmaSettings rdmaSettings) {
        return new S3Gateway(store, settings, Clock.systemUTC(),
                new RdmaServices(() -> sessions, () -> staging, () -> cuObj, rdmaSettings, rcConnections),
                this::countErrorCode);
    }

    @Deactivate
    void deactivate() {
        rcConnections.close();
    }

    /** The gateway the next request is served by. */
    S3Gateway gateway() {
        return gateway;
    }

    /** @throws IllegalArgumentException naming the bad property */
    static S3Settings settings(S3GatewayConfig c) {
        if (c.max_clock_skew() < 1 || c.max_clock_skew() > 86_400) {
            throw new IllegalArgumentException("max.clock.skew must be 1 to 86400 seconds, was " + c.max_clock_skew());
        }
        try {
            return new S3Settings(c.region(), c.virtual_host_domain(), Duration.ofSeconds(c.max_clock_skew()),
                    c.max_xml_body_bytes(), c.max_put_bytes(), c.sigv2_enabled(), c.public_access_enabled());
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new IllegalArgumentException("Invalid org.objrdma.s3 configuration: " + e.getMessage(), e);
        }
    }

    /** @throws IllegalArgumentException naming the bad property */
    static RdmaSettings rdmaSettings(S3GatewayConfig c) {
        return new RdmaSettings(c.rdma_min_bytes(), c.rdma_chunk_bytes(),
                RdmaSettings.ForeignSessions.parse(c.rdma_foreign_sessions()),
                Duration.ofMillis(c.rdma_forward_connect_timeout_ms()), Duration.ofMillis(c.rdma_forward_read_timeout_ms()),
                RdmaSettings.DeclinedPut.parse(c.rdma_declined_put()),
                RdmaSettings.RcStatusStyle.parse(c.rdma_rc_status_style()));
    }

    /** @throws IllegalArgumentException naming the bad property */
    static RcConnectionSettings rcConnectionSettings(S3GatewayConfig c) {
        return new RcConnectionSettings(c.rdma_rc_max_connections(), c.rdma_rc_max_connections_per_source(),
                Duration.ofMillis(c.rdma_rc_idle_timeout_ms()), Duration.ofMillis(c.rdma_rc_unbound_timeout_ms()),
                Duration.ofMillis(c.rdma_rc_transfer_timeout_ms()));
    }

    private void countErrorCode(String code) {
        Telemetry counters = telemetry;
        if (counters != null) {
            counters.increment(KeyedCounter.S3_ERRORS_BY_CODE, code);
        }
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long start = System.nanoTime();
        try {
            gateway.handle(new ServletS3Request(req), new ServletS3Response(resp, req));
        } finally {
            // every request once, whatever it answered; an error is any 4xx/5xx the gateway set
            Telemetry counters = telemetry;
            if (counters != null) {
                counters.increment(Counter.S3_REQUESTS);
                if (resp.getStatus() >= 400) {
                    counters.increment(Counter.S3_ERRORS);
                }
                counters.record(Latency.S3_REQUEST, System.nanoTime() - start);
            }
        }
    }
}
