package org.objrdma.staging.internal;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingStatus;
import org.objrdma.api.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Registration with transports: one {@link TransportBinding} per live transport, the preferred one (where
 * borrows that name no transport register), and the transports that went away (a borrow naming one is refused
 * rather than taking it up again). A better transport appearing changes only the preference: leases and idle
 * buffers of the others stay valid. Thread-safe.
 */
final class TransportBindings {
    private static final Logger LOG = LoggerFactory.getLogger(TransportBindings.class);

    private final SizeClasses classes;
    private final Object lock = new Object();
    /** The binding of each live transport; guarded by lock. */
    private final Map<Transport, TransportBinding> bindings = new IdentityHashMap<>();
    /** Transports that went away; guarded by lock. */
    private final Set<Transport> gone = Collections.newSetFromMap(new WeakHashMap<>());
    /** Where borrows that name no transport register; null: such borrows fail NO_TRANSPORT. */
    private volatile TransportBinding preferred;
    private long generations; // guarded by lock

    /** @param initial the preferred transport to start with (bound now, without a log line), or null */
    TransportBindings(SizeClasses classes, Transport initial) {
        this.classes = classes;
        if (initial != null) {
            synchronized (lock) {
                preferred = bindingOf(initial);
            }
        }
    }

    /**
     * Makes {@code transport} the preferred one (null: none), binding it if it is new; the previous preferred
     * binding stays. Logs the change.
     */
    void prefer(Transport transport) {
        TransportBinding previous;
        TransportBinding next;
        synchronized (lock) {
            previous = preferred;
            if (transport != null) {
                gone.remove(transport); // bound again: a fresh binding, the old buffers stay stale
            }
            next = transport == null ? null : bindingOf(transport);
            preferred = next;
        }
        if (previous != next) {
            LOG.info("Staging buffers now register with {} by default (was {})",
                    next == null ? "no transport" : next, previous == null ? "none" : previous);
        }
    }

    /**
     * {@code transport} went away: its binding retires (no longer preferred if it was) and a later borrow naming
     * it is refused. Returns the retired binding, or null if it had none.
     */
    TransportBinding retire(Transport transport) {
        TransportBinding retired;
        synchronized (lock) {
            retired = bindings.remove(transport);
            gone.add(transport);
            if (retired == null) {
                return null;
            }
            retired.retire();
            if (preferred == retired) {
                preferred = null;
            }
        }
        LOG.info("Staging buffers of {} retire: the transport went away", retired);
        return retired;
    }

    /** The preferred binding, or null. */
    TransportBinding preferred() {
        return preferred;
    }

    /** The binding a borrow registers with: {@code on}'s (taken up now if new), or the preferred one. */
    TransportBinding bindingFor(Transport on) throws StagingException {
        if (on == null) {
            TransportBinding b = preferred;
            if (b == null) {
                throw new StagingException(StagingStatus.NO_TRANSPORT,
                        "no transport is bound to register staging buffers with");
            }
            return b;
        }
        synchronized (lock) {
            TransportBinding b = bindings.get(on);
            if (b != null) {
                return b;
            }
            if (gone.contains(on)) {
                throw new StagingException(StagingStatus.NO_TRANSPORT, "transport " + on.name() + " went away");
            }
            // the consumer saw the transport before this pool was told of it: take it up now
            b = bindingOf(on);
            LOG.debug("Staging pool takes up transport {} for a borrow that names it", b);
            return b;
        }
    }

    /** Transports with a live binding now. */
    int count() {
        synchronized (lock) {
            return bindings.size();
        }
    }

    /** Under lock. */
    private TransportBinding bindingOf(Transport transport) {
        return bindings.computeIfAbsent(transport, t -> new TransportBinding(t, ++generations, classes));
    }
}
