package org.objrdma.verbs.internal.transport;

import java.util.Iterator;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.objrdma.api.transport.WcStatus;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transport's completion thread. It polls the completion queue of every channel that has
 * {@code submit}ted work outstanding, completes batch futures, and enforces batch deadlines. Channels whose
 * work was {@code post}ed are polled by their owner through {@code Channel.poll}; the poller only steps in
 * for them while a batch shares the queue.
 *
 * <p>Futures always complete on this thread (or, at close, on the closing thread), outside every channel
 * lock, never on a thread that called {@code poll}: a batch whose last completion any thread reads is
 * handed over through {@link #finishLater}, so a callback may use the channel freely.
 */
final class CompletionPoller implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(CompletionPoller.class);

    private final String name;
    private final Supplier<Iterable<VerbsChannel>> channels;
    private final IdleStrategy idle;
    private final Set<PendingBatch> active = ConcurrentHashMap.newKeySet();
    private final Queue<PendingBatch> toFinish = new ConcurrentLinkedQueue<>();
    private volatile boolean running = true;
    private final Thread thread;

    CompletionPoller(String name, Supplier<Iterable<VerbsChannel>> channels, IdleStrategy idle) {
        this.name = name;
        this.channels = channels;
        this.idle = idle;
        this.thread = Thread.ofPlatform().name(name).daemon(true).unstarted(this);
    }

    void start() {
        thread.start();
    }

    /** A batch was posted: watch its deadline and make sure the thread is awake. */
    void track(PendingBatch batch) {
        active.add(batch);
        LockSupport.unpark(thread);
    }

    /** Forget a batch that ended without the poller (post failed, channel closed). */
    void untrack(PendingBatch batch) {
        active.remove(batch);
    }

    /** A batch whose last completion another thread read: finish it here. */
    void finishLater(PendingBatch batch) {
        toFinish.add(batch);
        LockSupport.unpark(thread);
    }

    /** Stops and joins the thread; batches still open stay for the channels' close to flush. Idempotent. */
    void stop() {
        running = false;
        LockSupport.unpark(thread);
        if (Thread.currentThread() != thread) {
            boolean interrupted = false;
            while (thread.isAlive()) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void run() {
        LOG.debug("{} started ({} idle strategy)", name, idle.kind());
        while (running) {
            try {
                int work = finishHandedOver();
                boolean outstanding = false;
                for (VerbsChannel ch : channels.get()) {
                    if (ch.hasBatchWork()) {
                        outstanding = true;
                        work += ch.pollFromPoller();
                    }
                }
                work += expireDeadlines();
                if (work > 0) {
                    idle.reset();
                } else if (!outstanding && active.isEmpty() && toFinish.isEmpty()) {
                    // nothing in flight: sleep until submit() or finishLater() unparks us
                    LockSupport.park(this);
                    idle.reset();
                } else {
                    idle.idle();
                }
            } catch (RuntimeException | Error e) {
                // a poller that dies silently would hang every batch: log and go on
                LOG.error("{}: unexpected failure while polling completions", name, e);
                LockSupport.parkNanos(1_000_000);
            }
        }
        LOG.debug("{} stopped", name);
    }

    private int finishHandedOver() {
        int n = 0;
        PendingBatch b;
        while ((b = toFinish.poll()) != null) {
            active.remove(b);
            b.finish();
            n++;
        }
        return n;
    }

    private int expireDeadlines() {
        if (active.isEmpty()) {
            return 0;
        }
        long now = System.nanoTime();
        int n = 0;
        for (Iterator<PendingBatch> it = active.iterator(); it.hasNext(); ) {
            PendingBatch b = it.next();
            if (b.isDone()) {
                it.remove();
            } else if (now - b.deadlineNanos >= 0) {
                it.remove();
                b.abandon(WcStatus.RESP_TIMEOUT_ERR, true, () -> b.channel.failAfterTimeout(b.epoch));
                n++;
            }
        }
        return n;
    }
}
