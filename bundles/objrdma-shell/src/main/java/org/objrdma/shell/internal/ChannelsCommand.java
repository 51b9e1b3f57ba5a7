package org.objrdma.shell.internal;

import java.util.List;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.support.table.ShellTable;
import org.objrdma.api.transport.ChannelInfo;
import org.objrdma.api.transport.Transport;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * The open channels of every Transport service ({@code Transport.channels()}), transports in the order
 * {@code rdma:transports} lists them. A transport that keeps no channel list shows none.
 */
@Service
@Command(scope = "rdma", name = "channels", description = "Lists the open channels of every transport: state, peer, grants, bytes")
public class ChannelsCommand implements Action {

    @Option(name = "--transport", description = "only the transport with this name")
    @org.apache.karaf.shell.api.action.Completion(TransportNameCompleter.class)
    String transportName;

    @Option(name = "--no-format", description = "Disable table rendered output")
    boolean noFormat;

    @Reference
    BundleContext bundleContext;

    @Override
    public Object execute() throws Exception {
        ShellTable table = new ShellTable();
        for (String column : List.of("Transport", "Channel", "State", "Peer", "Grants", "Bytes written", "Bytes read")) {
            table.column(column);
        }
        List<ServiceReference<Transport>> transports = TransportsCommand.transports(bundleContext, null);
        if (transportName != null && transports.stream()
                .noneMatch(ref -> transportName.equals(ServiceProperties.text(ref, Transport.PROPERTY_NAME)))) {
            throw new IllegalArgumentException("--transport: no Transport service is named '" + transportName + "'");
        }
        for (ServiceReference<Transport> ref : transports) {
            String name = ServiceProperties.text(ref, Transport.PROPERTY_NAME);
            if (transportName != null && !transportName.equals(name)) {
                continue;
            }
            Transport transport = bundleContext.getService(ref);
            if (transport == null) {
                continue; // went away while listing
            }
            try {
                for (ChannelInfo c : transport.channels()) {
                    table.addRow().addContent(name, c.id(), c.state(), c.peer().isEmpty() ? "-" : c.peer(), c.grants(),
                            bytes(c.bytesWritten()), bytes(c.bytesRead()));
                }
            } finally {
                bundleContext.ungetService(ref);
            }
        }
        table.print(System.out, !noFormat);
        return null;
    }

    private static String bytes(long count) {
        return count < 0 ? "-" : String.valueOf(count);
    }
}
