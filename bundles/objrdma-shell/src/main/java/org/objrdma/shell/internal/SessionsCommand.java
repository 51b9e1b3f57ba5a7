package org.objrdma.shell.internal;

import java.util.HexFormat;
import java.util.List;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Completion;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.support.table.ShellTable;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionManager;
import org.objrdma.api.session.SessionSnapshot;

/**
 * The session manager's live sessions. The snapshot carries no principal, so {@code --principal} keeps
 * the sessions {@link SessionManager#sessionInfo} accepts for that principal (a read with no effect on the
 * session), and {@code --cancel} cancels as that owner: the SPI has no administrator cancel.
 */
@Service
@Command(scope = "rdma", name = "sessions", description = "Lists live hipobj-rc-v2 sessions; cancels one by id")
public class SessionsCommand implements Action {

    @Option(name = "--principal", description = "principal id as 64 hex digits: only its sessions; the owner for --cancel")
    String principal;

    @Option(name = "--cancel", description = "session id (32 hex digits) to cancel; needs --principal (its owner)")
    @Completion(SessionIdCompleter.class)
    String cancel;

    @Option(name = "--no-format", description = "Disable table rendered output")
    boolean noFormat;

    @Reference
    SessionManager sessions;

    @Override
    public Object execute() {
        PrincipalId who = principal == null ? null : parsePrincipal(principal);
        if (cancel != null) {
            SessionId id = SessionId.parse(cancel).orElseThrow(() -> new IllegalArgumentException(
                    "--cancel: '" + cancel + "' is not a session id (" + SessionId.HEX_LENGTH + " hex digits)"));
            if (who == null) {
                throw new IllegalArgumentException("--cancel needs --principal: the owner of session " + id);
            }
            RcStatus status = sessions.cancel(id, who);
            if (!status.isOk()) {
                throw new IllegalStateException("cancel of session " + id + " refused: " + status);
            }
            System.out.println("Session " + id + " cancelled");
            return null;
        }
        List<SessionSnapshot> live = sessions.snapshot();
        ShellTable table = new ShellTable();
        for (String column : List.of("Session", "Op", "Target", "State", "Reap pending", "Age ms", "Staging bytes")) {
            table.column(column);
        }
        for (SessionSnapshot s : live) {
            if (who != null && !sessions.sessionInfo(s.sessionId(), who).status().isOk()) {
                continue;
            }
            table.addRow().addContent(s.sessionId(), s.op(), s.target(), s.state(), s.reapPending(),
                    s.age().toMillis(), s.stagingBytes());
        }
        table.print(System.out, !noFormat);
        return null;
    }

    static PrincipalId parsePrincipal(String text) {
        try {
            return PrincipalId.of(HexFormat.of().parseHex(text.trim()));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--principal: '" + text + "' is not a principal id ("
                    + 2 * PrincipalId.LENGTH + " hex digits)", e);
        }
    }
}
