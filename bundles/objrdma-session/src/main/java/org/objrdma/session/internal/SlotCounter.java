package org.objrdma.session.internal;

import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A counting semaphore that never blocks: {@code rc_try_acquire_ready} / {@code rc_release_ready} and
 * their stage twins. A release without an acquire is reported and ignored rather than letting the
 * count go negative and silently raise the limit.
 */
final class SlotCounter {
    private static final Logger LOG = LoggerFactory.getLogger(SlotCounter.class);

    private final String name;
    private final int max;
    private final AtomicInteger inUse = new AtomicInteger();

    SlotCounter(String name, int max) {
        this.name = name;
        this.max = max;
    }

    boolean tryAcquire() {
        int current;
        do {
            current = inUse.get();
            if (current >= max) {
                return false;
            }
        } while (!inUse.compareAndSet(current, current + 1));
        return true;
    }

    void release() {
        int current;
        do {
            current = inUse.get();
            if (current == 0) {
                LOG.warn("{} slot released without an acquire; ignored", name);
                return;
            }
        } while (!inUse.compareAndSet(current, current - 1));
    }

    int inUse() {
        return inUse.get();
    }

    int max() {
        return max;
    }
}
