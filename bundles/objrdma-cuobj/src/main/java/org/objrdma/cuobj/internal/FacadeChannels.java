package org.objrdma.cuobj.internal;

import java.util.BitSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The server's channel ids {@code 0 .. numDcis-1}: allocation lowest first under one lock (cheap: it happens
 * once per worker thread), and per allocated channel the queue of completed asynchronous requests.
 *
 * <p>A channel is a small object created on its first allocation and reused: it holds no connection (those are
 * shared, {@link AgentConnections}). Every allocation starts a new generation; a completion that arrives for an
 * older generation (the channel was freed with requests in flight, which the API forbids) is discarded.
 */
public final class FacadeChannels {

    /** A completed asynchronous request. */
    public record Event(Object asyncHandle, int status, int generation) {
    }

    /** One allocated channel. */
    public static final class Slot {
        private final int id;
        private volatile int generation;
        private volatile boolean allocated;
        private final ConcurrentLinkedQueue<Event> events = new ConcurrentLinkedQueue<>();
        private final AtomicInteger outstanding = new AtomicInteger();
        /** The thread blocked in {@link #awaitEvent}, if any: one thread uses a channel at a time. */
        private volatile Thread waiter;

        Slot(int id) {
            this.id = id;
        }

        public int id() {
            return id;
        }

        public int generation() {
            return generation;
        }

        /** Counts a submitted asynchronous request. */
        public void submitted() {
            outstanding.incrementAndGet();
        }

        /** Queues the completion of a request submitted in {@code generation}; transport threads call it. */
        public void completed(Object asyncHandle, int status, int generation) {
            outstanding.decrementAndGet();
            if (generation == this.generation && allocated) {
                events.add(new Event(asyncHandle, status, generation));
                Thread w = waiter;
                if (w != null) {
                    LockSupport.unpark(w);
                }
            }
        }

        /**
         * Blocks until a completion is queued, {@code deadline} ({@link System#nanoTime()}) passes or the thread is
         * interrupted; true if one is queued. Completions wake the waiter directly: no polling interval.
         */
        public boolean awaitEvent(long deadline) {
            Thread me = Thread.currentThread();
            waiter = me;
            try {
                while (events.isEmpty()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0 || me.isInterrupted()) {
                        return false;
                    }
                    LockSupport.parkNanos(this, left);
                }
                return true;
            } finally {
                waiter = null;
            }
        }

        /** The next completion of the current generation, or null. */
        public Event next() {
            Event e;
            while ((e = events.poll()) != null) {
                if (e.generation == generation) {
                    return e;
                }
            }
            return null;
        }

        /** Completions queued and not yet polled (current generation or not). */
        public int queued() {
            return events.size();
        }

        /** Asynchronous requests submitted and not completed. */
        public int outstanding() {
            return outstanding.get();
        }
    }

    private final int count;
    private final BitSet allocated = new BitSet();
    private final Slot[] slots;

    public FacadeChannels(int count) {
        this.count = count;
        this.slots = new Slot[count];
    }

    /** Number of channel ids ({@code num_dcis}). */
    public int count() {
        return count;
    }

    /** The lowest free id, now allocated, or -1 if all are taken. */
    public synchronized int allocate() {
        int id = allocated.nextClearBit(0);
        if (id >= count) {
            return -1;
        }
        allocated.set(id);
        Slot s = slots[id];
        if (s == null) {
            s = new Slot(id);
            slots[id] = s;
        }
        s.generation++;
        s.events.clear();
        s.allocated = true;
        return id;
    }

    /**
     * Frees {@code id}. Returns the slot's outstanding request count before freeing (callers log misuse), or -1
     * if {@code id} was out of range or not allocated (a no-op).
     */
    public synchronized int free(int id) {
        if (id < 0 || id >= count || !allocated.get(id)) {
            return -1;
        }
        allocated.clear(id);
        Slot s = slots[id];
        s.allocated = false;
        s.generation++;
        s.events.clear();
        return s.outstanding();
    }

    /** The slot of allocated channel {@code id}, or null. Lock-free: called on every request. */
    public Slot allocatedSlot(int id) {
        if (id < 0 || id >= count) {
            return null;
        }
        Slot s = slots[id];
        return s != null && s.allocated ? s : null;
    }

    /** Channels allocated now. */
    public synchronized int allocatedCount() {
        return allocated.cardinality();
    }
}
