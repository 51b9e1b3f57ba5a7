package org.objrdma.transport.tcp.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.TransportLevel;
import java.util.Hashtable;
import org.objrdma.transport.common.Closer;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;

/**
 * Publishes one {@link TcpTransport} as the {@link Transport} service {@code objrdma.transport.name=tcp},
 * {@code objrdma.transport.level=TCP}, ranked by {@code service.ranking} (0 by default, below verbs).
 *
 * <p>A configuration change is checked first: a bad value is refused with one ERROR line naming the property
 * and the transport keeps running with its previous settings. A change of {@code service.ranking} alone is
 * applied live (the registration's properties change, nothing restarts). Any other change restarts the
 * transport, with one INFO line saying so: the old one is unregistered and shuts down (its channels
 * flushed, its regions invalidated), then a new one with the new settings is registered. Consumers see an
 * ordinary service swap.
 *
 * <p>The component registers the service itself ({@code service = {}}) rather than letting SCR publish the
 * component properties: a Karaf {@code .cfg} file delivers {@code service.ranking} as a String, which the
 * framework would rank as 0, so the service is published with the validated ranking as an Integer and the
 * component properties otherwise unchanged (the public ones, as SCR would publish them).
 */
// the capability SCR would have declared for a DS service, so that feature resolution still finds a Transport
@org.osgi.annotation.bundle.Capability(namespace = "osgi.service",
        attribute = "objectClass:List<String>=\"org.objrdma.api.transport.Transport\"",
        uses = Transport.class)
@Component(name = TcpTransportComponent.PID, service = {},
        immediate = true,
        property = {
            Transport.PROPERTY_NAME + "=" + TcpTransport.NAME,
            Transport.PROPERTY_LEVEL + "=TCP",
            Transport.PROPERTY_ENDPOINT_KIND + "=" + EndpointInfo.Tcp.KIND,
            Transport.PROPERTY_FLOWS + "=" + Transport.FLOW_AGENT_ONE_SIDED, // the same set as TcpTransport.FLOWS
            Transport.PROPERTY_FLOWS + "=" + Transport.FLOW_RC_SESSION,
            Constants.SERVICE_RANKING + ":Integer=0"
        })
@Designate(ocd = TcpTransportConfig.class)
public final class TcpTransportComponent implements Transport {

    /** Component name and configuration PID. */
    public static final String PID = "org.objrdma.transport.tcp";

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile Telemetry telemetry;

    private BundleContext context;
    private volatile TcpTransport transport;
    private TcpSettings settings;
    private ServiceRegistration<Transport> registration;

    @Activate
    void activate(TcpTransportConfig config, Map<String, Object> properties, BundleContext bundleContext) {
        context = bundleContext;
        settings = TcpSettings.from(config, properties.get(Constants.SERVICE_RANKING));
        transport = start(settings);
        registration = context.registerService(Transport.class, this, serviceProperties(properties, settings));
    }

    @Modified
    synchronized void modified(TcpTransportConfig config, Map<String, Object> properties) {
        TcpSettings next;
        try {
            next = TcpSettings.from(config, properties.get(Constants.SERVICE_RANKING));
        } catch (IllegalArgumentException refused) {
            TcpTransport.LOG.error("Configuration of {} refused, the transport keeps its previous settings: {}", PID,
                    refused.getMessage());
            return;
        }
        if (next.equals(settings.withServiceRanking(next.serviceRanking()))) {
            settings = next;
            registration.setProperties(serviceProperties(properties, next));
            return;
        }
        TcpTransport.LOG.info("Configuration of {} changed: restarting the TCP transport on {}:{} (its channels end, "
                + "its regions are invalidated)", PID, next.bindAddress().getHostAddress(), next.port());
        registration.unregister();
        registration = null;
        transport.close();
        TcpSettings previous = settings;
        try {
            transport = start(next);
            settings = next;
        } catch (UncheckedIOException e) {
            TcpTransport.LOG.error("{}; {} starts again with its previous settings", e.getMessage(), PID);
            transport = start(previous);
        }
        registration = context.registerService(Transport.class, this,
                serviceProperties(properties, settings));
    }

    private TcpTransport start(TcpSettings with) {
        try {
            return TcpTransport.start(with, () -> telemetry);
        } catch (IOException e) {
            throw new UncheckedIOException("the TCP transport cannot listen on " + with.bindAddress()
                    .getHostAddress() + ":" + with.port() + ": " + e.getMessage(), e);
        }
    }

    /** The public component properties (no {@code component.*}, no {@code .private}), ranking typed. */
    static Hashtable<String, Object> serviceProperties(Map<String, Object> properties, TcpSettings settings) {
        Hashtable<String, Object> out = new Hashtable<>();
        properties.forEach((key, value) -> {
            if (!key.startsWith(".") && !key.startsWith("component.")) {
                out.put(key, value);
            }
        });
        out.put(Constants.SERVICE_RANKING, settings.serviceRanking());
        return out;
    }

    /**
     * Consumers let go of the service before its channels and regions are closed under them; the transport
     * closes even when the unregistration throws (its listening socket and threads would outlive the
     * component): the failure is thrown afterwards. A registration the framework took back already is fine.
     */
    @Deactivate
    synchronized void deactivate() {
        ServiceRegistration<Transport> published = registration;
        registration = null;
        Closer.closeAll(() -> unregister(published), transport::close);
    }

    private static void unregister(ServiceRegistration<?> r) {
        if (r == null) {
            return;
        }
        try {
            r.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the framework unregisters the services of a stopping bundle; nothing left to do
        }
    }

    @Override
    public String name() {
        return transport.name();
    }

    @Override
    public TransportLevel level() {
        return transport.level();
    }

    @Override
    public Set<String> flows() {
        return TcpTransport.FLOWS;
    }

    @Override
    public boolean isAvailable() {
        return transport.isAvailable();
    }

    @Override
    public Optional<String> unavailabilityCause() {
        return transport.unavailabilityCause();
    }

    @Override
    public MemoryRegion register(MemorySegment segment, Set<Access> access) throws TransportException {
        return transport.register(segment, access);
    }

    @Override
    public Channel openChannel(ChannelOptions options) throws TransportException {
        return transport.openChannel(options);
    }

    @Override
    public java.util.List<org.objrdma.api.transport.ChannelInfo> channels() {
        return transport.channels();
    }

    @Override
    public String toString() {
        return "TcpTransportComponent[" + transport + "]";
    }
}
