package org.objrdma.shell.internal;

import java.util.List;

import javax.management.DynamicMBean;
import javax.management.NotCompliantMBeanException;
import javax.management.StandardMBean;

import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionManager;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/** Publishes {@link SessionsMXBean} through the JMX whiteboard. */
@Component(service = DynamicMBean.class, property = "jmx.objectname=org.objrdma:type=sessions,name=rc")
public final class SessionsJmx extends StandardMBean implements SessionsMXBean {

    // Dynamic and greedy, so this MBean (one registration in the MBean server) follows the live service:
    // a static reference would re-create the component, and the JMX whiteboard could keep the old object
    // registered under the name while the new one is refused as a duplicate (see README, MBeans).
    @Reference(policy = ReferencePolicy.DYNAMIC, policyOption = ReferencePolicyOption.GREEDY)
    private volatile SessionManager sessions;

    public SessionsJmx() throws NotCompliantMBeanException {
        super(SessionsMXBean.class, true);
    }

    @Override
    public int getCount() {
        return sessions.snapshot().size();
    }

    @Override
    public List<String> getSessions() {
        return sessions.snapshot().stream().map(s -> String.join("\t", s.sessionId().hex(), s.op().name(),
                s.target(), s.state().name(), String.valueOf(s.reapPending()), String.valueOf(s.age().toMillis()),
                String.valueOf(s.stagingBytes()))).toList();
    }

    @Override
    public String cancel(String sessionId, String principalHex) {
        SessionId id = SessionId.parse(sessionId).orElseThrow(() -> new IllegalArgumentException(
                "sessionId: '" + sessionId + "' is not a session id (" + SessionId.HEX_LENGTH + " hex digits)"));
        return sessions.cancel(id, SessionsCommand.parsePrincipal(principalHex)).name();
    }
}
