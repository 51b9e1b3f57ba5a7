package org.objrdma.shell.internal;

import java.util.List;

/** {@code org.objrdma:type=sessions,name=rc}: the live sessions; cancel as their owner (admin by the default ACL). */
public interface SessionsMXBean {
    int getCount();

    /** One line per live session: id, op, target, state, reap pending, age ms, staging bytes (tab separated). */
    List<String> getSessions();

    /**
     * Cancels {@code sessionId} as {@code principalHex} (64 hex digits), the owner.
     *
     * @return the session manager's status name, {@code OK} when cancelled
     */
    String cancel(String sessionId, String principalHex);
}
