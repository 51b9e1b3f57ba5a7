package org.objrdma.shell.internal;

import static org.objrdma.shell.internal.ServiceProperties.text;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.support.table.ShellTable;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * The verbs runtime and its devices, from the service properties the verbs bundle publishes. Looked up by
 * class name so that the shell bundle does not need the verbs bundle installed.
 */
@Service
@Command(scope = "rdma", name = "devices", description = "Lists the verbs runtime and the RDMA devices it found")
public class DevicesCommand implements Action {

    static final String VERBS_RUNTIME = "org.objrdma.verbs.VerbsRuntime";
    static final String VERBS_DEVICE = "org.objrdma.verbs.VerbsDevice";

    @Option(name = "--no-format", description = "Disable table rendered output")
    boolean noFormat;

    @Reference
    BundleContext bundleContext;

    @Override
    public Object execute() throws Exception {
        List<ServiceReference<?>> runtimes = references(bundleContext, VERBS_RUNTIME);
        if (runtimes.isEmpty()) {
            System.out.println("No verbs runtime (feature objrdma-verbs not installed)");
        }
        for (ServiceReference<?> runtime : runtimes) {
            System.out.println("Verbs runtime: available=" + text(runtime, "objrdma.verbs.available")
                    + " library=" + text(runtime, "objrdma.verbs.library")
                    + " cause=" + text(runtime, "objrdma.verbs.unavailability.cause"));
        }
        ShellTable table = new ShellTable();
        for (String column : List.of("Device", "Port", "State", "Link", "MTU", "LID", "GID index", "Software",
                "Grants", "Max QP", "Max MR", "Service")) {
            table.column(column);
        }
        List<ServiceReference<?>> devices = references(bundleContext, VERBS_DEVICE);
        devices.sort(Comparator.comparing((ServiceReference<?> r) -> text(r, "objrdma.verbs.device"))
                .thenComparing(r -> text(r, "objrdma.verbs.port")));
        for (ServiceReference<?> d : devices) {
            table.addRow().addContent(text(d, "objrdma.verbs.device"), text(d, "objrdma.verbs.port"),
                    text(d, "objrdma.verbs.port.state"), text(d, "objrdma.verbs.link.layer"),
                    text(d, "objrdma.verbs.active.mtu"), text(d, "objrdma.verbs.lid"),
                    text(d, "objrdma.verbs.gid.index"), text(d, "objrdma.verbs.software"),
                    text(d, "objrdma.verbs.grants"), text(d, "objrdma.verbs.max.qp"),
                    text(d, "objrdma.verbs.max.mr"), ServiceProperties.serviceId(d));
        }
        table.print(System.out, !noFormat);
        return null;
    }

    static List<ServiceReference<?>> references(BundleContext context, String className)
            throws InvalidSyntaxException {
        ServiceReference<?>[] refs = context.getAllServiceReferences(className, null);
        return refs == null ? new ArrayList<>() : new ArrayList<>(List.of(refs));
    }
}
