package org.objrdma.staging.internal;

import java.util.Objects;
import org.objrdma.api.transport.Transport;

/**
 * The transport new buffers are registered with, and the generation of that choice. Bindings are compared
 * by identity: binding the same transport again after another one still makes the old buffers stale.
 */
final class TransportBinding {

    private final Transport transport;
    private final long generation;

    TransportBinding(Transport transport, long generation) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.generation = generation;
    }

    Transport transport() {
        return transport;
    }

    long generation() {
        return generation;
    }

    @Override
    public String toString() {
        return transport.name() + "#" + generation;
    }
}
