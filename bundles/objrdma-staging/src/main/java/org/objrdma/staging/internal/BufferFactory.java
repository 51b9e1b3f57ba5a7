package org.objrdma.staging.internal;

import java.util.Set;
import org.apache.commons.pool2.KeyedPooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;

/**
 * Makes, checks and destroys the buffers of the Commons Pool: a key is one size class of one transport
 * binding. A buffer is valid while its binding is live (its transport has not gone away) and its region
 * is open; any other buffer is destroyed (deregistered, then freed) the next time the pool sees it idle
 * or returned.
 */
final class BufferFactory implements KeyedPooledObjectFactory<TransportBinding.Key, StagingBuffer> {

    /** No transport is bound: nothing can be registered. */
    static final class NoTransportException extends Exception {
        private static final long serialVersionUID = 1L;

        NoTransportException() {
            super("no transport is bound", null, false, false);
        }
    }

    /** The off-heap allocation itself failed (the JVM reports it as an OutOfMemoryError). */
    static final class AllocationFailedException extends Exception {
        private static final long serialVersionUID = 1L;

        AllocationFailedException(long size, Throwable cause) {
            super("could not allocate a " + size + "-byte off-heap buffer: " + cause.getMessage(), cause);
        }
    }

    /** Every buffer that exists, lent or idle: what the overdue check and shutdown walk. */
    private final Set<StagingBuffer> liveBuffers;

    BufferFactory(Set<StagingBuffer> liveBuffers) {
        this.liveBuffers = liveBuffers;
    }

    @Override
    public PooledObject<StagingBuffer> makeObject(TransportBinding.Key key) throws Exception {
        TransportBinding binding = key.binding();
        if (!binding.isLive()) {
            throw new NoTransportException();
        }
        StagingBuffer buffer;
        try {
            buffer = StagingBuffer.allocate(key.classIndex(), key.classSize(), binding);
        } catch (OutOfMemoryError e) {
            // an Error would skip Commons Pool's own bookkeeping of the failed create
            throw new AllocationFailedException(key.classSize(), e);
        }
        liveBuffers.add(buffer);
        return new DefaultPooledObject<>(buffer);
    }

    @Override
    public boolean validateObject(TransportBinding.Key key, PooledObject<StagingBuffer> p) {
        StagingBuffer buffer = p.getObject();
        return buffer.binding().isLive() && buffer.region().isOpen();
    }

    @Override
    public void destroyObject(TransportBinding.Key key, PooledObject<StagingBuffer> p) {
        StagingBuffer buffer = p.getObject();
        liveBuffers.remove(buffer);
        buffer.close();
    }

    @Override
    public void activateObject(TransportBinding.Key key, PooledObject<StagingBuffer> p) {
        // a staging buffer carries no state between leases; the borrower overwrites what it uses
    }

    @Override
    public void passivateObject(TransportBinding.Key key, PooledObject<StagingBuffer> p) {
        // nothing to reset, see activateObject
    }
}
