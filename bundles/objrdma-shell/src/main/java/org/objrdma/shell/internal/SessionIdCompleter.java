package org.objrdma.shell.internal;

import java.util.List;

import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.api.console.CommandLine;
import org.apache.karaf.shell.api.console.Completer;
import org.apache.karaf.shell.api.console.Session;
import org.apache.karaf.shell.support.completers.StringsCompleter;
import org.objrdma.api.session.SessionManager;

/** Completes the ids of the sessions live now. */
@Service
public class SessionIdCompleter implements Completer {

    @Reference
    SessionManager sessions;

    @Override
    public int complete(Session session, CommandLine commandLine, List<String> candidates) {
        StringsCompleter ids = new StringsCompleter();
        sessions.snapshot().forEach(s -> ids.getStrings().add(s.sessionId().hex()));
        return ids.complete(session, commandLine, candidates);
    }
}
