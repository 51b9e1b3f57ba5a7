package org.objrdma.itests.rdma;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.objrdma.api.store.ObjectStore;

/**
 * The real store behind a gate the test opens and closes: every call goes to the delegate, but while the gate is
 * closed {@link ObjectStore#read} (the hipobj-rc-v2 GET's staging read, the one call the gateway makes holding a stage
 * slot) waits for it to open. Lets an IT hold the gateway's stage slots for as long as it needs without a slow disk.
 */
public final class GatedStore {

    private final Object lock = new Object();
    private boolean closed;
    private final AtomicInteger waiting = new AtomicInteger();

    /** The delegate's {@link ObjectStore} interface with the gate in front of {@code read}. */
    public ObjectStore wrap(ObjectStore delegate) {
        return (ObjectStore) Proxy.newProxyInstance(ObjectStore.class.getClassLoader(), new Class<?>[] {ObjectStore.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("read")) {
                        pass();
                    }
                    try {
                        return method.invoke(delegate, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private void pass() throws InterruptedException {
        synchronized (lock) {
            if (!closed) {
                return;
            }
            waiting.incrementAndGet();
            try {
                long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
                while (closed) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new IllegalStateException("the test never opened the store gate");
                    }
                    TimeUnit.NANOSECONDS.timedWait(lock, left);
                }
            } finally {
                waiting.decrementAndGet();
            }
        }
    }

    public void close() {
        synchronized (lock) {
            closed = true;
        }
    }

    public void open() {
        synchronized (lock) {
            closed = false;
            lock.notifyAll();
        }
    }

    /** Reads waiting at the closed gate now. */
    public int waiting() {
        return waiting.get();
    }
}
