package org.objrdma.session.internal;

import java.util.Collection;
import java.util.HexFormat;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.objrdma.api.session.SessionId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live sessions: the map by id, new ids, and the one template every per-session call goes through
 * ({@link #withSession}): get, lock, apply deadlines, run the call's transition, recompute the deadline, unlock, and
 * tear the session down if that left it marked and unpinned.
 *
 * <p>A session claimed for teardown leaves the map before its teardown runs; until its listeners were told it stays
 * in {@link #endingNow()}, so a shutdown racing a teardown on another thread (a READY that just failed) does not
 * find nothing live, return, and let DS unbind the listeners before that teardown reached them.
 */
final class SessionTable {
    private static final Logger LOG = LoggerFactory.getLogger(SessionTable.class);
    private static final HexFormat HEX = HexFormat.of();

    /** One call's transition on one session, run under its monitor after its deadlines were applied. */
    @FunctionalInterface
    interface Transition<R> {
        R apply(Session session, long now);
    }

    private final ConcurrentHashMap<SessionId, Session> sessions = new ConcurrentHashMap<>();
    private final Set<Session> endingNow = ConcurrentHashMap.newKeySet();
    private final MonotonicClock clock;
    private final RandomSource random;
    private final long leaseTimeoutMs;
    private final SessionTeardown teardown;

    SessionTable(MonotonicClock clock, RandomSource random, long leaseTimeoutMs, SessionTeardown teardown) {
        this.clock = clock;
        this.random = random;
        this.leaseTimeoutMs = leaseTimeoutMs;
        this.teardown = teardown;
    }

    /**
     * The template of every call on one session. {@code missing} is the answer when no such session lives; the
     * transition runs under the session's monitor with its deadlines applied first, and the session is torn down
     * afterwards (outside the monitor) if it is marked and nothing holds it.
     */
    <R> R withSession(SessionId id, R missing, Transition<R> transition) {
        Session s = sessions.get(id);
        if (s == null) {
            return missing;
        }
        R result;
        synchronized (s) {
            long now = clock.millis();
            s.applyDeadlines(now, leaseTimeoutMs);
            result = transition.apply(s, now);
            s.recomputeEarliestDeadline();
        }
        reapIfUnpinned(s);
        return result;
    }

    /** Applies the deadlines of one session the reaper found due, and tears it down if that freed it. */
    boolean applyDeadlinesAndReap(Session s, long now) {
        synchronized (s) {
            s.applyDeadlines(now, leaseTimeoutMs);
        }
        return reapIfUnpinned(s);
    }

    /**
     * Tears the session down if it is marked and nothing holds it. The claim under the monitor makes teardown,
     * and so the terminal notification, happen once.
     *
     * @return true if this call tore it down
     */
    boolean reapIfUnpinned(Session s) {
        synchronized (s) {
            if (!s.claimForTeardown()) {
                return false;
            }
        }
        endClaimed(s, true);
        return true;
    }

    /**
     * Moves a session just claimed (REAPING) from the live map to {@link #endingNow} — in that order, so a
     * shutdown never sees it in neither — and tears it down; it leaves {@link #endingNow} once notified.
     */
    void endClaimed(Session s, boolean returnStaging) {
        endingNow.add(s);
        sessions.remove(s.id, s);
        try {
            teardown.tearDown(s, returnStaging);
        } finally {
            endingNow.remove(s);
        }
    }

    /** A fresh random id (with this node's tag), or null when the random source failed. */
    SessionId newId(NodeFleet fleet) {
        byte[] bits = new byte[16];
        try {
            random.nextBytes(bits);
            fleet.stamp(bits);
        } catch (RuntimeException e) {
            LOG.error("PREPARE refused (INTERNAL): the random source failed", e);
            return null;
        }
        return new SessionId(HEX.formatHex(bits));
    }

    /** Publishes a new session; false when its id collided with a live one (nothing changed then). */
    boolean publish(Session s) {
        return sessions.putIfAbsent(s.id, s) == null;
    }

    Session get(SessionId id) {
        return sessions.get(id);
    }

    Collection<Session> live() {
        return sessions.values();
    }

    int size() {
        return sessions.size();
    }

    /** True when no session is live and no teardown is still running. */
    boolean drained() {
        return sessions.isEmpty() && endingNow.isEmpty();
    }

    /** Sessions claimed for teardown whose listeners were not told yet. */
    Collection<Session> endingNow() {
        return endingNow;
    }

    long millis() {
        return clock.millis();
    }
}
