package org.objrdma.shell.internal;

import static org.objrdma.shell.internal.ServiceProperties.text;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Argument;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.support.completers.StringsCompleter;
import org.apache.karaf.shell.support.table.ShellTable;
import org.objrdma.api.transport.Transport;
import org.objrdma.shell.internal.TransportBindings.Binding;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.runtime.ServiceComponentRuntime;

/**
 * Every Transport service and which consumer binds which; {@code pin} and {@code unpin} steer one
 * consumer's unary Transport reference through its {@code <reference>.target} configuration property.
 */
@Service
@Command(scope = "rdma", name = "transports",
        description = "Lists the Transport services and their consumers; pins a consumer to one transport")
public class TransportsCommand implements Action {

    @Argument(index = 0, name = "action", required = false, description = "list (default), pin or unpin")
    @Completion(value = StringsCompleter.class, values = {"list", "pin", "unpin"})
    String action = "list";

    @Argument(index = 1, name = "consumer", required = false,
            description = "component name of the consumer to pin or unpin")
    @Completion(TransportConsumerCompleter.class)
    String consumer;

    @Argument(index = 2, name = "transport", required = false, description = "transport name to pin to")
    @Completion(TransportNameCompleter.class)
    String transportName;

    @Option(name = "--no-format", description = "Disable table rendered output")
    boolean noFormat;

    @Reference
    BundleContext bundleContext;

    @Reference
    ServiceComponentRuntime scr;

    @Reference
    ConfigurationAdmin configurationAdmin;

    @Override
    public Object execute() throws Exception {
        switch (action) {
            case "list" -> list();
            case "pin" -> System.out.println(pins().pin(consumer, transportName));
            case "unpin" -> System.out.println(pins().unpin(consumer));
            default -> throw new IllegalArgumentException("unknown action '" + action + "': use list, pin or unpin");
        }
        return null;
    }

    private TransportPins pins() {
        return new TransportPins(bundleContext, scr, configurationAdmin);
    }

    private void list() throws Exception {
        List<ServiceReference<Transport>> transports = transports(bundleContext, null);
        List<Binding> bindings = TransportBindings.all(scr);
        Map<Long, String> names = new HashMap<>();
        ShellTable table = new ShellTable();
        for (String column : List.of("Name", "Level", "Kind", "Flows", "Ranking", "Available", "Service",
                "Bound by")) {
            table.column(column);
        }
        for (ServiceReference<Transport> ref : transports) {
            long id = ServiceProperties.serviceId(ref);
            names.put(id, text(ref, Transport.PROPERTY_NAME));
            String boundBy = bindings.stream().filter(b -> b.unary() && b.boundServiceIds().contains(id))
                    .map(b -> b.component() + "." + b.reference()).sorted().collect(Collectors.joining(","));
            Transport transport = bundleContext.getService(ref);
            String available;
            try {
                available = transport == null ? "gone"
                        : transport.isAvailable() ? "yes" : "no: " + transport.unavailabilityCause().orElse("?");
            } finally {
                if (transport != null) {
                    bundleContext.ungetService(ref);
                }
            }
            table.addRow().addContent(text(ref, Transport.PROPERTY_NAME), text(ref, Transport.PROPERTY_LEVEL),
                    text(ref, Transport.PROPERTY_ENDPOINT_KIND), text(ref, Transport.PROPERTY_FLOWS),
                    ServiceProperties.ranking(ref), available, id, boundBy.isEmpty() ? "-" : boundBy);
        }
        table.print(System.out, !noFormat);
        System.out.println();
        ShellTable consumers = new ShellTable();
        for (String column : List.of("Consumer", "Reference", "Bound", "Target", "State")) {
            consumers.column(column);
        }
        for (Binding b : bindings) {
            if (!b.unary()) {
                continue;
            }
            String bound = b.boundServiceIds().stream().map(id -> names.getOrDefault(id, "?") + "#" + id)
                    .collect(Collectors.joining(","));
            consumers.addRow().addContent(b.component(), b.reference(), bound.isEmpty() ? "-" : bound,
                    b.target() == null ? "-" : b.target(), b.state());
        }
        consumers.print(System.out, !noFormat);
    }

    static List<ServiceReference<Transport>> transports(BundleContext context, String filter) throws Exception {
        List<ServiceReference<Transport>> refs = new ArrayList<>(context.getServiceReferences(Transport.class, filter));
        refs.sort(Comparator.comparing((ServiceReference<Transport> r) -> -ServiceProperties.ranking(r))
                .thenComparing(ServiceProperties::serviceId));
        return refs;
    }
}
