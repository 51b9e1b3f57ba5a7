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
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.Designate;

/**
 * Publishes one {@link TcpTransport} as the {@link Transport} service {@code objrdma.transport.name=tcp},
 * {@code objrdma.transport.level=TCP}, ranked by {@code service.ranking} (0 by default, below verbs).
 *
 * <p>A configuration change deactivates and reactivates the component: the old transport shuts down (its
 * channels flushed, its regions invalidated) and a new one with the new settings is registered. Consumers
 * see an ordinary service swap.
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

    private TcpTransport transport;
    private ServiceRegistration<Transport> registration;

    @Activate
    void activate(TcpTransportConfig config, Map<String, Object> properties, BundleContext context) {
        TcpSettings settings = TcpSettings.from(config, properties.get(Constants.SERVICE_RANKING));
        try {
            transport = TcpTransport.start(settings, () -> telemetry);
        } catch (IOException e) {
            throw new UncheckedIOException("the TCP transport cannot listen on " + settings.bindAddress()
                    .getHostAddress() + ":" + settings.port() + ": " + e.getMessage(), e);
        }
        registration = context.registerService(Transport.class, this, serviceProperties(properties, settings));
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

    @Deactivate
    void deactivate() {
        // consumers let go of the service before its channels and regions are closed under them
        if (registration != null) {
            registration.unregister();
            registration = null;
        }
        transport.close();
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
    public String toString() {
        return "TcpTransportComponent[" + transport + "]";
    }
}
