package org.objrdma.shell.internal;

import static org.objrdma.shell.internal.ServiceProperties.text;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

import javax.management.DynamicMBean;
import javax.management.NotCompliantMBeanException;
import javax.management.StandardMBean;

import org.objrdma.api.transport.Transport;
import org.objrdma.shell.internal.TransportBindings.Binding;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.runtime.ServiceComponentRuntime;

/** Publishes {@link TransportsMXBean} through the JMX whiteboard. */
@Component(service = DynamicMBean.class, property = "jmx.objectname=org.objrdma:type=transports,name=registry")
public final class TransportsJmx extends StandardMBean implements TransportsMXBean {

    @Reference
    private ServiceComponentRuntime scr;

    @Reference
    private ConfigurationAdmin configurationAdmin;

    private BundleContext bundleContext;

    public TransportsJmx() throws NotCompliantMBeanException {
        super(TransportsMXBean.class, true);
    }

    @Activate
    void activate(BundleContext context) {
        this.bundleContext = context;
    }

    @Override
    public Map<String, String> getTransports() {
        Map<String, String> out = new TreeMap<>();
        try {
            for (ServiceReference<Transport> ref : TransportsCommand.transports(bundleContext, null)) {
                Transport t = bundleContext.getService(ref);
                String available = t == null ? "gone" : String.valueOf(t.isAvailable());
                if (t != null) {
                    bundleContext.ungetService(ref);
                }
                out.put(text(ref, Transport.PROPERTY_NAME), String.join("\t", text(ref, Transport.PROPERTY_LEVEL),
                        text(ref, Transport.PROPERTY_ENDPOINT_KIND), text(ref, Transport.PROPERTY_FLOWS),
                        String.valueOf(ServiceProperties.ranking(ref)), available,
                        String.valueOf(ServiceProperties.serviceId(ref))));
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot list Transport services: " + e.getMessage(), e);
        }
        return out;
    }

    @Override
    public Map<String, String> getBindings() {
        Map<Long, String> names = new HashMap<>();
        try {
            for (ServiceReference<Transport> ref : bundleContext.getServiceReferences(Transport.class, null)) {
                names.put(ServiceProperties.serviceId(ref), text(ref, Transport.PROPERTY_NAME));
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot list Transport services: " + e.getMessage(), e);
        }
        Map<String, String> out = new TreeMap<>();
        for (Binding b : TransportBindings.all(scr)) {
            if (b.unary()) {
                String bound = b.boundServiceIds().stream().map(id -> names.getOrDefault(id, "?") + "#" + id)
                        .collect(Collectors.joining(","));
                out.put(b.component() + "." + b.reference(), bound.isEmpty() ? "-" : bound);
            }
        }
        return out;
    }

    @Override
    public String pin(String consumer, String transport) throws Exception {
        return new TransportPins(bundleContext, scr, configurationAdmin).pin(consumer, transport);
    }

    @Override
    public String unpin(String consumer) throws Exception {
        return new TransportPins(bundleContext, scr, configurationAdmin).unpin(consumer);
    }
}
