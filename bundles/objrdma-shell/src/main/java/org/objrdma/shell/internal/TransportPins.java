package org.objrdma.shell.internal;

import java.util.Dictionary;
import java.util.Hashtable;

import org.objrdma.api.transport.Transport;
import org.objrdma.shell.internal.TransportBindings.Binding;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Filter;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.runtime.ServiceComponentRuntime;

/**
 * Pins a consumer's unary Transport reference to one transport by writing {@code <reference>.target} into
 * the consumer's configuration (Declarative Services then rebinds it), and removes the pin. Shared by
 * rdma:transports and the transports MBean. Every refusal happens before anything is written.
 */
final class TransportPins {

    private final BundleContext bundleContext;
    private final ServiceComponentRuntime scr;
    private final ConfigurationAdmin configurationAdmin;

    TransportPins(BundleContext bundleContext, ServiceComponentRuntime scr, ConfigurationAdmin configurationAdmin) {
        this.bundleContext = bundleContext;
        this.scr = scr;
        this.configurationAdmin = configurationAdmin;
    }

    /** Pins {@code consumer} to {@code transportName}; returns the line to show. */
    String pin(String consumer, String transportName) throws Exception {
        Binding binding = requireConsumer(consumer);
        if (transportName == null || transportName.isBlank()) {
            throw new IllegalArgumentException("pin needs a transport name: pin <consumer> <transport>");
        }
        String target = TransportBindings.pinnedTarget(binding, transportName);
        Filter filter = bundleContext.createFilter(target);
        boolean matches = bundleContext.getServiceReferences(Transport.class, null).stream().anyMatch(filter::match);
        if (!matches) {
            throw new IllegalArgumentException("no Transport service named '" + transportName + "' matches "
                    + binding.component() + "'s reference (" + target + "); nothing changed");
        }
        Configuration configuration = configurationFor(binding);
        Dictionary<String, Object> properties = copy(configuration);
        properties.put(TransportBindings.targetProperty(binding), target);
        configuration.update(properties);
        return binding.component() + ": " + TransportBindings.targetProperty(binding) + " = " + target
                + " (PID " + binding.configurationPid() + ")";
    }

    /** Removes the pin of {@code consumer}; returns the line to show. */
    String unpin(String consumer) throws Exception {
        Binding binding = requireConsumer(consumer);
        Configuration configuration = configurationFor(binding);
        Dictionary<String, Object> properties = copy(configuration);
        if (properties.remove(TransportBindings.targetProperty(binding)) == null) {
            return binding.component() + " is not pinned";
        }
        configuration.update(properties);
        return binding.component() + ": " + TransportBindings.targetProperty(binding) + " removed, back to "
                + (binding.descriptionTarget() == null ? "the best-ranked transport" : binding.descriptionTarget());
    }

    private Binding requireConsumer(String consumer) {
        if (consumer == null || consumer.isBlank()) {
            throw new IllegalArgumentException("name a consumer component");
        }
        return TransportBindings.unaryOf(scr, consumer).orElseThrow(() -> new IllegalArgumentException(
                "'" + consumer + "' is no component with a single Transport reference; consumers: "
                        + TransportBindings.consumers(scr).keySet()));
    }

    private Configuration configurationFor(Binding binding) throws Exception {
        if ("ignore".equals(binding.policy())) {
            throw new IllegalArgumentException(binding.component() + " ignores configuration; it cannot be pinned");
        }
        Configuration configuration = configurationAdmin.getConfiguration(binding.configurationPid(), null);
        if (configuration.getProperties() == null && "require".equals(binding.policy())) {
            throw new IllegalArgumentException(binding.component() + " requires a configuration (PID "
                    + binding.configurationPid() + ") and has none yet: configure it first; nothing changed");
        }
        return configuration;
    }

    private static Dictionary<String, Object> copy(Configuration configuration) {
        Dictionary<String, Object> current = configuration.getProperties();
        Hashtable<String, Object> out = new Hashtable<>();
        if (current != null) {
            for (var keys = current.keys(); keys.hasMoreElements(); ) {
                String key = keys.nextElement();
                out.put(key, current.get(key));
            }
        }
        return out;
    }
}
