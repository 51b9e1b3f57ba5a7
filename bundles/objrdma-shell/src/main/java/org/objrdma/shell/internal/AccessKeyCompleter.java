package org.objrdma.shell.internal;

import java.util.List;

import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.api.console.CommandLine;
import org.apache.karaf.shell.api.console.Completer;
import org.apache.karaf.shell.api.console.Session;
import org.apache.karaf.shell.support.completers.StringsCompleter;
import org.osgi.service.cm.ConfigurationAdmin;

/** Completes the embedded store's access keys (never secrets). */
@Service
public class AccessKeyCompleter implements Completer {

    @Reference
    ConfigurationAdmin configurationAdmin;

    @Override
    public int complete(Session session, CommandLine commandLine, List<String> candidates) {
        try {
            return new StringsCompleter(new StoreCredentials(configurationAdmin).read().keySet())
                    .complete(session, commandLine, candidates);
        } catch (Exception e) {
            return -1; // Config Admin unreadable: offer nothing
        }
    }
}
