package org.objrdma.session.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.objrdma.api.transport.Channel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes many channels at once. A transport's close may wait a bounded grace for its peer (the TCP transport
 * waits for the peer's hang-up so that an acknowledgement it owes is not lost to a reset), and a peer that is
 * frozen makes every close wait the whole grace: one after the other, N sessions would hold the thread that
 * ends them (a DS unbind, a shutdown) for N graces. Each channel is closed on its own virtual thread, and the
 * caller waits at most {@code boundMillis} for all of them together; a close still running then goes on by
 * itself (every transport bounds it) while the caller carries on.
 */
final class ChannelCloser {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelCloser.class);

    private ChannelCloser() {
    }

    /** Closes every channel of {@code channels} (nulls skipped) concurrently; returns how many were still closing at the bound. */
    static int closeAll(List<Channel> channels, long boundMillis) {
        if (channels.size() == 1) {
            closeQuietly(channels.get(0));
            return 0;
        }
        List<Thread> closing = new ArrayList<>(channels.size());
        for (Channel c : channels) {
            if (c != null) {
                closing.add(Thread.ofVirtual().name("objrdma-session-close-" + c.id()).start(() -> closeQuietly(c)));
            }
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(boundMillis);
        int late = 0;
        for (Thread t : closing) {
            try {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !t.join(java.time.Duration.ofNanos(left))) {
                    late++;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                late++;
            }
        }
        if (late > 0) {
            LOG.warn("{} of {} channel close(s) still running after {} ms; they finish on their own", late,
                    closing.size(), boundMillis);
        }
        return late;
    }

    static void closeQuietly(Channel c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (RuntimeException e) {
            LOG.warn("closing channel {} failed", c.id(), e);
        }
    }
}
