package org.objrdma.shell.internal;

import java.util.List;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.support.table.ShellTable;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.KeyedCounter;
import org.objrdma.api.telemetry.TelemetryView;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;

/**
 * The S3 gateway: its component's state, the HTTP endpoints the whiteboard runtime serves it on
 * ({@code osgi.http.endpoint} of every HttpServiceRuntime), its request and error counters, and then the
 * error answers by S3 error code.
 */
@Service
@Command(scope = "rdma", name = "gateway", description = "Shows the S3 gateway: state, endpoints, requests, errors")
public class GatewayCommand implements Action {

    static final String COMPONENT = "org.objrdma.s3";
    static final String HTTP_RUNTIME = "org.osgi.service.http.runtime.HttpServiceRuntime";

    @Option(name = "--no-format", description = "Disable table rendered output")
    boolean noFormat;

    @Reference
    BundleContext bundleContext;

    @Reference
    ServiceComponentRuntime scr;

    @Reference
    TelemetryView telemetry;

    @Override
    public Object execute() throws Exception {
        String state = "not installed";
        for (ComponentDescriptionDTO d : scr.getComponentDescriptionDTOs()) {
            if (d.name.equals(COMPONENT)) {
                var configurations = scr.getComponentConfigurationDTOs(d);
                state = configurations.isEmpty() ? "no configuration or disabled"
                        : TransportBindings.stateName(configurations.iterator().next().state);
            }
        }
        StringBuilder endpoints = new StringBuilder();
        for (ServiceReference<?> runtime : DevicesCommand.references(bundleContext, HTTP_RUNTIME)) {
            endpoints.append(endpoints.isEmpty() ? "" : ",").append(ServiceProperties.text(runtime, "osgi.http.endpoint"));
        }
        ShellTable table = new ShellTable();
        for (String column : List.of("Component", "State", "Endpoints", "Requests", "Errors")) {
            table.column(column);
        }
        table.addRow().addContent(COMPONENT, state, endpoints.isEmpty() ? "-" : endpoints.toString(),
                telemetry.value(Counter.S3_REQUESTS), telemetry.value(Counter.S3_ERRORS));
        table.print(System.out, !noFormat);
        System.out.println();
        ShellTable byCode = new ShellTable();
        byCode.column("Error code");
        byCode.column("Answers");
        telemetry.keyed(KeyedCounter.S3_ERRORS_BY_CODE).forEach((code, count) -> byCode.addRow().addContent(code, count));
        byCode.print(System.out, !noFormat);
        return null;
    }
}
