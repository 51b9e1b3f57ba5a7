package org.objrdma.staging.internal;

import java.util.Set;
import java.util.function.Supplier;
import org.apache.commons.pool2.KeyedPooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;

/**
 * Makes, checks and destroys the buffers of the Commons Pool: a key is a class size. A buffer is valid
 * while it is registered with the transport the pool is bound to now; a buffer of an earlier binding is
 * destroyed (deregistered, then freed) the next time the pool sees it idle or returned.
 */
final class BufferFactory implements KeyedPooledObjectFactory<Long, StagingBuffer> {

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

    private final SizeClasses classes;
    private final Supplier<TransportBinding> currentBinding;
    /** Every buffer that exists, lent or idle: what the overdue check and shutdown walk. */
    private final Set<StagingBuffer> liveBuffers;

    BufferFactory(SizeClasses classes, Supplier<TransportBinding> currentBinding, Set<StagingBuffer> liveBuffers) {
        this.classes = classes;
        this.currentBinding = currentBinding;
        this.liveBuffers = liveBuffers;
    }

    @Override
    public PooledObject<StagingBuffer> makeObject(Long classSize) throws Exception {
        TransportBinding binding = currentBinding.get();
        if (binding == null) {
            throw new NoTransportException();
        }
        StagingBuffer buffer;
        try {
            buffer = StagingBuffer.allocate(classes.indexFor(classSize), classSize, binding);
        } catch (OutOfMemoryError e) {
            // an Error would skip Commons Pool's own bookkeeping of the failed create
            throw new AllocationFailedException(classSize, e);
        }
        liveBuffers.add(buffer);
        return new DefaultPooledObject<>(buffer);
    }

    @Override
    public boolean validateObject(Long classSize, PooledObject<StagingBuffer> p) {
        StagingBuffer buffer = p.getObject();
        return buffer.binding() == currentBinding.get() && buffer.region().isOpen();
    }

    @Override
    public void destroyObject(Long classSize, PooledObject<StagingBuffer> p) {
        StagingBuffer buffer = p.getObject();
        liveBuffers.remove(buffer);
        buffer.close();
    }

    @Override
    public void activateObject(Long classSize, PooledObject<StagingBuffer> p) {
        // a staging buffer carries no state between leases; the borrower overwrites what it uses
    }

    @Override
    public void passivateObject(Long classSize, PooledObject<StagingBuffer> p) {
        // nothing to reset, see activateObject
    }
}
