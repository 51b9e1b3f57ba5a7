package org.objrdma.session.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.api.transport.Channel;
import org.objrdma.session.internal.Session.Abandonment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ending many sessions at once: cancel-all, a transport or staging pool gone, and shutdown. Channels of sessions
 * ended together are closed together ({@link ChannelCloser}), so peers that no longer answer cost one close grace,
 * not one per session.
 */
final class SessionEnding {
    private static final Logger LOG = LoggerFactory.getLogger(SessionEnding.class);

    private final SessionTable table;
    private final SessionReaper reaper;
    private final CoreBindings bindings;
    private final long closeGraceMs;

    SessionEnding(SessionTable table, SessionReaper reaper, CoreBindings bindings, long closeGraceMs) {
        this.table = table;
        this.reaper = reaper;
        this.bindings = bindings;
        this.closeGraceMs = closeGraceMs;
    }

    /** Marks every live session with {@code reason} and tears down those nothing holds. */
    void markAll(TerminalReason reason) {
        List<Session> reapable = new ArrayList<>();
        List<Channel> channels = new ArrayList<>();
        for (Session s : table.live()) {
            synchronized (s) {
                if (s.markForEnd(reason)) {
                    reapable.add(s);
                    channels.add(s.plan.channel());
                }
            }
        }
        // nothing holds these and they are marked: their channels go down together, not one grace after another
        ChannelCloser.closeAll(channels, closeGraceMs);
        for (Session s : reapable) {
            table.reapIfUnpinned(s);
        }
        for (Session s : table.live()) {
            table.reapIfUnpinned(s); // a holder that let go meanwhile
        }
    }

    /**
     * Every session {@code which} selects ends with a wire failure: its channel is closed now (a running data phase
     * fails at once with a flush), staging returns as soon as nothing holds it, the terminal notification fires once.
     *
     * @return how many sessions were ended
     */
    int endWhere(Predicate<Session> which, String why) {
        List<Session> lost = new ArrayList<>();
        List<Channel> channels = new ArrayList<>();
        for (Session s : table.live()) {
            if (!which.test(s)) {
                continue;
            }
            synchronized (s) {
                if (!s.loseTransport()) {
                    continue;
                }
            }
            channels.add(s.plan.channel());
            lost.add(s);
        }
        ChannelCloser.closeAll(channels, closeGraceMs);
        for (Session s : lost) {
            table.reapIfUnpinned(s);
        }
        if (!lost.isEmpty()) {
            LOG.warn("{}: {} session(s) end with a wire failure", why, lost.size());
        }
        return lost.size();
    }

    /**
     * Stops admissions, ends every session and waits up to {@code timeout} for them to drain (holders returning
     * leases, data phases finishing). Whatever is still held then is torn down by force and reported: its channel
     * is closed; its staging goes back to the pool only if no lease or view of it is still out (a holder may still
     * be writing into it); limits are released; the terminal notification fires. Idempotent.
     */
    ShutdownReport shutdown(Duration timeout) {
        bindings.startClosing();
        reaper.stop();
        int atStart = table.size();
        long deadline = System.nanoTime() + timeout.toNanos();
        markAll(TerminalReason.SHUTDOWN);
        while (!table.drained() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(Math.max(1, Math.min(20, (deadline - System.nanoTime()) / 1_000_000)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            reaper.pass();
            markAll(TerminalReason.SHUTDOWN); // sessions a racing PREPARE published after the first mark
        }
        List<Channel> held = new ArrayList<>();
        for (Session s : table.live()) {
            held.add(s.plan.channel());
        }
        // a data phase that still runs fails at once; all channels together
        ChannelCloser.closeAll(held, closeGraceMs);
        List<String> abandoned = new ArrayList<>();
        for (Session s : table.live()) {
            Abandonment a;
            synchronized (s) {
                a = s.abandon();
            }
            if (a != null) {
                table.endClaimed(s, a.returnStaging());
                abandoned.add(s.id + " (" + a.holders() + ")");
            }
        }
        for (Session s : table.endingNow()) {
            // claimed by another thread whose teardown (a transport's close) outlived the timeout: it still
            // notifies when it finishes, but the caller may unbind the listeners first; say so
            abandoned.add(s.id + " (teardown still running on another thread)");
        }
        if (!abandoned.isEmpty()) {
            LOG.warn("session manager shutdown: {} session(s) still held after {} ms, torn down by force: {}",
                    abandoned.size(), timeout.toMillis(), abandoned);
        }
        return new ShutdownReport(atStart, Math.max(0, atStart - abandoned.size()), abandoned);
    }
}
