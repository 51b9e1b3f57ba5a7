package org.objrdma.shell.internal;

import java.util.List;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.support.table.ShellTable;
import org.objrdma.api.telemetry.TelemetryView;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.runtime.ServiceComponentRuntime;

/**
 * The S3 gateway: its component's state, the HTTP endpoints the whiteboard runtime serves it on
 * ({@code osgi.http.endpoint} of every HttpServiceRuntime), its request and error counters, and then the
 * error answers by S3 error code.
 */
@Service
@Command(scope = "rdma", name = "gateway", description = "Shows the S3 gateway: state, endpoints, requests, errors")
public class GatewayCommand implements Action {

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
        GatewayStatus status = GatewayStatus.read(bundleContext, scr, telemetry);
        ShellTable table = new ShellTable();
        for (String column : List.of("Component", "State", "Endpoints", "Requests", "Errors")) {
            table.column(column);
        }
        table.addRow().addContent(GatewayStatus.COMPONENT, status.state(), status.endpoints(), status.requests(),
                status.errors());
        table.print(System.out, !noFormat);
        System.out.println();
        ShellTable byCode = new ShellTable();
        byCode.column("Error code");
        byCode.column("Answers");
        status.errorsByCode().forEach((code, count) -> byCode.addRow().addContent(code, count));
        byCode.print(System.out, !noFormat);
        return null;
    }
}
