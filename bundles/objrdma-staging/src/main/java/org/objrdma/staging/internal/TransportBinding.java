package org.objrdma.staging.internal;

import java.util.Objects;
import org.objrdma.api.transport.Transport;

/**
 * One transport the pool registers buffers with, and the Commons Pool keys of its buffers (one per size
 * class). The pool keeps one binding per live transport: buffers of a binding stay valid until that
 * transport goes away ({@link #retire()}), whichever transport the pool prefers for new borrows meanwhile.
 * Bindings are compared by identity: a transport that comes back after it went away gets a new binding,
 * and the old buffers stay stale.
 */
final class TransportBinding {

    /** A Commons Pool key: one size class of one binding. */
    record Key(TransportBinding binding, int classIndex, long classSize) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.binding == binding && k.classIndex == classIndex;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(binding) * 31 + classIndex;
        }

        @Override
        public String toString() {
            return binding + "/" + classSize;
        }
    }

    private final Transport transport;
    private final long generation;
    private final Key[] keys;
    private volatile boolean live = true;

    TransportBinding(Transport transport, long generation, SizeClasses classes) {
        this.transport = Objects.requireNonNull(transport, "transport");
        this.generation = generation;
        this.keys = new Key[classes.count()];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = new Key(this, i, classes.size(i));
        }
    }

    Transport transport() {
        return transport;
    }

    long generation() {
        return generation;
    }

    Key key(int classIndex) {
        return keys[classIndex];
    }

    Key[] keys() {
        return keys.clone();
    }

    /** False once the transport went away: its buffers are destroyed when the pool next sees them. */
    boolean isLive() {
        return live;
    }

    void retire() {
        live = false;
    }

    @Override
    public String toString() {
        return transport.name() + "#" + generation;
    }
}
