package org.objrdma.shell.internal;

import java.util.List;

import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.api.console.CommandLine;
import org.apache.karaf.shell.api.console.Completer;
import org.apache.karaf.shell.api.console.Session;
import org.apache.karaf.shell.support.completers.StringsCompleter;
import org.osgi.service.component.runtime.ServiceComponentRuntime;

/** Completes the names of components with a single Transport reference. */
@Service
public class TransportConsumerCompleter implements Completer {

    @Reference
    ServiceComponentRuntime scr;

    @Override
    public int complete(Session session, CommandLine commandLine, List<String> candidates) {
        StringsCompleter names = new StringsCompleter(TransportBindings.consumers(scr).keySet());
        return names.complete(session, commandLine, candidates);
    }
}
