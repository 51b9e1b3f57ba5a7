package org.objrdma.session.internal;

import org.objrdma.api.session.SessionTerminalListener;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases what one session claimed for teardown holds, in the one order that is safe: the channel first (after
 * close no transfer touches staging), then the staging grant (explicitly, whatever the transport did on close: a
 * slice registration outlives the channel), then staging, then the limit charges; then counts and notifies its
 * terminal listeners, each once.
 */
final class SessionTeardown {
    private static final Logger LOG = LoggerFactory.getLogger(SessionTeardown.class);

    private final LimitAccounting accounting;
    private final CoreBindings bindings;

    SessionTeardown(LimitAccounting accounting, CoreBindings bindings) {
        this.accounting = accounting;
        this.bindings = bindings;
    }

    /**
     * Caller claimed {@code s} (REAPING). {@code returnStaging} false: a holder may still write into the staging
     * (shutdown abandoned it), so it is not given back to the pool.
     */
    void tearDown(Session s, boolean returnStaging) {
        try {
            s.plan.channel().close();
        } catch (RuntimeException e) {
            LOG.warn("session {}: closing channel {} failed", s.id, s.plan.channel().id(), e);
        }
        if (s.plan.stagingAccess() != null) {
            try {
                s.plan.stagingAccess().close();
            } catch (RuntimeException e) {
                LOG.warn("session {}: revoking the staging grant failed", s.id, e);
            }
        }
        if (returnStaging) {
            returnLease(s, s.plan.staging());
            if (s.plan.secondStaging() != null) {
                returnLease(s, s.plan.secondStaging());
            }
        }
        accounting.release(s.plan.principal());
        TerminalEvent event;
        synchronized (s) {
            event = s.terminalEvent();
        }
        Telemetry t = bindings.telemetry();
        t.increment(Counter.SESSIONS_ENDED);
        if (event.reason() == TerminalReason.EXPIRED) {
            t.increment(Counter.SESSIONS_EXPIRED);
        } else if (event.reason() == TerminalReason.CANCELLED) {
            t.increment(Counter.SESSIONS_CANCELLED);
        }
        LOG.debug("session {} ended: {} {} reason {} outcome {} bytes {}", s.id, s.plan.op(), s.plan.target(), event.reason(),
                event.lastOutcome().map(Enum::name).orElse("none"), event.bytes());
        for (SessionTerminalListener listener : bindings.listeners()) {
            try {
                listener.sessionEnded(event);
            } catch (VirtualMachineError e) {
                throw e;
            } catch (Throwable e) {
                LOG.warn("terminal listener {} failed for session {}; ignored", listener, s.id, e);
            }
        }
    }

    private static void returnLease(Session s, StagingLease lease) {
        try {
            if (!lease.release()) {
                LOG.warn("session {}: staging lease was already returned", s.id);
            }
        } catch (RuntimeException e) {
            LOG.warn("session {}: returning staging failed", s.id, e);
        }
    }
}
