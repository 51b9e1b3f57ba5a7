package org.objrdma.shell.internal;

import java.util.List;
import java.util.TreeSet;

import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.api.console.CommandLine;
import org.apache.karaf.shell.api.console.Completer;
import org.apache.karaf.shell.api.console.Session;
import org.apache.karaf.shell.support.completers.StringsCompleter;
import org.objrdma.api.transport.Transport;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/** Completes the names of the registered Transport services. */
@Service
public class TransportNameCompleter implements Completer {

    @Reference
    BundleContext bundleContext;

    @Override
    public int complete(Session session, CommandLine commandLine, List<String> candidates) {
        TreeSet<String> names = new TreeSet<>();
        try {
            for (ServiceReference<Transport> ref : bundleContext.getServiceReferences(Transport.class, null)) {
                names.add(ServiceProperties.text(ref, Transport.PROPERTY_NAME));
            }
        } catch (Exception e) {
            return -1; // an invalid filter cannot happen with null; nothing to offer
        }
        return new StringsCompleter(names).complete(session, commandLine, candidates);
    }
}
