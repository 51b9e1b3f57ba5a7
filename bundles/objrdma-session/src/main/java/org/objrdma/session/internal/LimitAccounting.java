package org.objrdma.session.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.objrdma.api.PrincipalId;

/**
 * Charges of live sessions against the global and per-principal limits ({@code limitsTake} /
 * {@code limitsRelease} of the C core): one session and one queue pair each, charged together at PREPARE and
 * released together at teardown. Staging bytes are not counted here: the staging pool is their one owner (its
 * {@code max.total.bytes} / {@code max.bytes.per.principal} refuse the session's lease, which PREPARE asks for
 * with the same principal and holds until teardown), so a second byte ledger here would only disagree with it.
 *
 * <p>No global lock: each global counter is a compare-and-set against its maximum, the per-principal
 * counters are updated inside {@link ConcurrentHashMap#compute} (which serializes one principal's
 * entry only), and a refusal rolls back what was already taken. Two PREPAREs racing for the last unit
 * may both be refused where a global lock would have admitted one; neither ever overshoots a limit.
 * A principal's entry is removed when its last session is released, so the map holds only principals
 * with live sessions.
 */
final class LimitAccounting {

    private final SessionSettings settings;
    private final AtomicLong sessions = new AtomicLong();
    private final AtomicLong qps = new AtomicLong();
    private final ConcurrentHashMap<PrincipalId, PrincipalUsage> perPrincipal = new ConcurrentHashMap<>();

    /** One principal's charges; mutated only inside {@code compute} on its map entry. */
    private static final class PrincipalUsage {
        long sessions;
        long qps;
    }

    /** Usage at one moment, for tests, snapshots and the shell. */
    record Usage(long sessions, long qps, int principals) {
    }

    LimitAccounting(SessionSettings settings) {
        this.settings = settings;
    }

    /**
     * Charges one session (and its queue pair) to {@code principal}.
     *
     * @return null when charged, else the name of the limit that refused (nothing is charged then)
     */
    String take(PrincipalId principal) {
        if (!tryAdd(sessions, 1, settings.maxSessions())) {
            return SessionSettings.MAX_SESSIONS;
        }
        if (!tryAdd(qps, 1, settings.maxQps())) {
            sessions.decrementAndGet();
            return SessionSettings.MAX_QPS;
        }
        String[] refusedBy = new String[1];
        perPrincipal.compute(principal, (key, existing) -> {
            PrincipalUsage usage = existing == null ? new PrincipalUsage() : existing;
            if (usage.sessions + 1 > settings.maxUserSessions()) {
                refusedBy[0] = SessionSettings.MAX_USER_SESSIONS;
            } else if (usage.qps + 1 > settings.maxUserQps()) {
                refusedBy[0] = SessionSettings.MAX_USER_QPS;
            } else {
                usage.sessions++;
                usage.qps++;
                return usage;
            }
            return existing; // refused: an absent entry stays absent
        });
        if (refusedBy[0] != null) {
            qps.decrementAndGet();
            sessions.decrementAndGet();
        }
        return refusedBy[0];
    }

    /** Releases what {@link #take} charged. */
    void release(PrincipalId principal) {
        perPrincipal.compute(principal, (key, usage) -> {
            if (usage == null) {
                throw new IllegalStateException("release without a charge for " + principal);
            }
            usage.sessions--;
            usage.qps--;
            return usage.sessions == 0 ? null : usage;
        });
        qps.decrementAndGet();
        sessions.decrementAndGet();
    }

    Usage usage() {
        return new Usage(sessions.get(), qps.get(), perPrincipal.size());
    }

    /** What one principal is charged now: sessions, queue pairs (both 0 if none). */
    long[] usageOf(PrincipalId principal) {
        long[] out = new long[2];
        perPrincipal.computeIfPresent(principal, (key, usage) -> {
            out[0] = usage.sessions;
            out[1] = usage.qps;
            return usage;
        });
        return out;
    }

    private static boolean tryAdd(AtomicLong counter, long delta, long max) {
        long current;
        do {
            current = counter.get();
            if (delta > max - current) {
                return false;
            }
        } while (!counter.compareAndSet(current, current + delta));
        return true;
    }
}
