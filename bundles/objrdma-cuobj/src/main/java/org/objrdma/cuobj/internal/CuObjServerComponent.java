package org.objrdma.cuobj.internal;

import java.util.Hashtable;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Transport;
import org.objrdma.cuobj.CuObjRDMATunable;
import org.objrdma.cuobj.CuObjServer;
import org.objrdma.cuobj.CuObjService;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
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
 * Publishes one {@link CuObjServer} as a service of that class, PID {@code org.objrdma.cuobj}. The component
 * needs a configuration (which may be empty: without {@code agent.key} the server runs in per-principal mode) and a
 * {@link Transport} (mandatory, dynamic, greedy:
 * the best-ranked one, or the one {@code transport.target} picks). A replaced transport is swapped in without a
 * restart: the server reads the bound one on every call, re-registers its buffers with it at their next
 * transfer, and drops its connections on the old one. A configuration change re-activates the component: the
 * old server is unregistered and closed, a new one registered.
 *
 * <p>While active it also registers its transport and shared agent key as a {@link ContainerDefaults.Source}
 * (instance state of this component, no static field), so that code written against the C-style constructors
 * ({@code new CuObjServer(ip, port, proto)}) works inside the container; they are gone with the component.
 *
 * <p>The service is registered under {@link CuObjService} (what the gateway binds) and the class
 * {@link CuObjServer} (for code written against the C API), by the component itself (DS can only register what
 * the component class implements), with the properties {@code ip}, {@code port}, {@code num.dcis} and
 * {@code objrdma.cuobj.transport} (the transport's name at activation).
 */
@Component(name = CuObjServerComponent.PID, service = {}, immediate = true,
        configurationPolicy = ConfigurationPolicy.REQUIRE)
@Designate(ocd = CuObjServerConfig.class)
public final class CuObjServerComponent {
    /** Component name and configuration PID. */
    public static final String PID = "org.objrdma.cuobj";
    /** The default target of the Transport reference: a transport that serves the cuObject flow. */
    public static final String TRANSPORT_TARGET = "(" + Transport.PROPERTY_FLOWS + "=" + Transport.FLOW_AGENT_ONE_SIDED + ")";

    private static final Logger LOG = LoggerFactory.getLogger(CuObjServerComponent.class);

    private volatile Transport transport;
    private volatile Telemetry telemetry;
    private CuObjServer server;
    private ServiceRegistration<?> registration;
    private ServiceRegistration<ContainerDefaults.Source> defaultsRegistration;

    @Activate
    void activate(BundleContext context, CuObjServerConfig config) {
        ServerSettings settings = ServerSettings.from(config); // throws naming the bad property
        CuObjRDMATunable tunable = settings.tunable();
        CuObjServer created = CuObjServer.builder()
                .transport(() -> transport)
                .telemetry(() -> telemetry)
                .address(settings.ip(), settings.port())
                .proto(settings.proto())
                .tunable(tunable)
                .telemetryFlags(settings.telemetryFlags(), settings.telemetryOpFlags())
                .build();
        if (!created.isConnected()) {
            created.close();
            throw new IllegalStateException("the cuObject server did not start on transport "
                    + (transport == null ? "none" : transport.name()) + " (see the log for the reason)");
        }
        server = created;
        // no shared key configured: per-principal mode, and C-style servers get none either
        byte[] sharedKey = ServerSession.sharedKeyOf(tunable);
        defaultsRegistration = context.registerService(ContainerDefaults.Source.class, new ContainerDefaults.Source() {
            @Override
            public Transport transport() {
                return transport;
            }

            @Override
            public byte[] agentKey() {
                return sharedKey == null ? null : sharedKey.clone();
            }
        }, null);
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("ip", settings.ip());
        props.put("port", settings.port());
        props.put("num.dcis", tunable.getNumDcis());
        props.put("objrdma.cuobj.transport", transport == null ? "" : transport.name());
        registration = context.registerService(new String[] {CuObjService.class.getName(), CuObjServer.class.getName()},
                created, props);
        LOG.info("cuObject server {}:{} active: {} channels, transport {}, {}", settings.ip(), settings.port(),
                tunable.getNumDcis(), transport == null ? "none" : transport.name(), tunable);
    }

    @Deactivate
    void deactivate() {
        unregister(registration);
        registration = null;
        unregister(defaultsRegistration);
        defaultsRegistration = null;
        if (server != null) {
            server.close();
            server = null;
        }
        LOG.info("cuObject server stopped");
    }

    private static void unregister(ServiceRegistration<?> r) {
        if (r == null) {
            return;
        }
        try {
            r.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the framework unregistered it with the bundle
        }
    }

    @Reference(name = "transport", service = Transport.class, cardinality = ReferenceCardinality.MANDATORY,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY, target = TRANSPORT_TARGET)
    void bindTransport(Transport t) {
        transport = t;
    }

    void unbindTransport(Transport t) {
        // a greedy replacement is bound before the old one is unbound: keep it
        if (transport == t) {
            transport = null;
        }
    }

    @Reference(name = "telemetry", service = Telemetry.class, cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    void bindTelemetry(Telemetry t) {
        telemetry = t;
    }

    void unbindTelemetry(Telemetry t) {
        if (telemetry == t) {
            telemetry = null;
        }
    }
}
