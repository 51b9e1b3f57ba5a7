package org.objrdma.api.session;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Whiteboard service: told once per session when it is gone ({@code rc_terminal_fn}). Register it as an
 * OSGi service; the session manager calls every registered listener.
 *
 * <p>Called on a session-manager or transport thread with no lock held. Return promptly and do not call
 * back into the session manager from inside; hand work on instead. An exception is logged and ignored.
 */
@ConsumerType
@FunctionalInterface
public interface SessionTerminalListener {
    void sessionEnded(TerminalEvent event);
}
