package org.objrdma.session.internal;

import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.objrdma.api.session.SessionTerminalListener;
import org.objrdma.api.staging.StagingPool;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Transport;

/**
 * What one session core is bound to and may change while it runs: the transport and staging pool new sessions use,
 * telemetry, the node fleet, the terminal listeners, and whether shutdown began. Sessions already open keep the
 * transport and pool they were prepared on.
 */
final class CoreBindings {
    private volatile Transport transport;
    private volatile StagingPool stagingPool;
    private volatile Telemetry telemetry = Telemetry.NOOP;
    private volatile NodeFleet fleet = NodeFleet.NONE;
    private volatile boolean closing;
    private final CopyOnWriteArrayList<SessionTerminalListener> listeners = new CopyOnWriteArrayList<>();

    Transport transport() {
        return transport;
    }

    void transport(Transport t) {
        transport = t;
    }

    /** Forgets {@code t} if it is the one bound (a newer one stays). */
    void transportGone(Transport t) {
        if (transport == t) {
            transport = null;
        }
    }

    StagingPool stagingPool() {
        return stagingPool;
    }

    void stagingPool(StagingPool pool) {
        stagingPool = pool;
    }

    /** Forgets {@code pool} if it is the one bound. */
    void stagingPoolGone(StagingPool pool) {
        if (stagingPool == pool) {
            stagingPool = null;
        }
    }

    Telemetry telemetry() {
        return telemetry;
    }

    void telemetry(Telemetry t) {
        telemetry = t == null ? Telemetry.NOOP : t;
    }

    NodeFleet fleet() {
        return fleet;
    }

    void fleet(NodeFleet f) {
        fleet = Objects.requireNonNull(f, "fleet");
    }

    boolean closing() {
        return closing;
    }

    void startClosing() {
        closing = true;
    }

    Iterable<SessionTerminalListener> listeners() {
        return listeners;
    }

    void addListener(SessionTerminalListener listener) {
        listeners.add(listener);
    }

    void removeListener(SessionTerminalListener listener) {
        listeners.remove(listener);
    }
}
