package org.objrdma.session.internal;

/**
 * One session's four deadlines and its reaper slot: which deadline is armed, the earliest of those that count
 * now, and that earliest mirrored into the session's {@link DeadlineSlots} slot so the reaper's scan sees it.
 * Owned by one {@link Session} and guarded by that session's monitor (every method is called under it).
 */
final class SessionDeadlines {
    /** 0 in a deadline field: not armed. */
    static final long NOT_ARMED = 0L;

    /** Until READY claims the session (re-armed after a Busy data phase). */
    long prep = NOT_ARMED;
    /** Until the READY data phase ends. */
    long exec = NOT_ARMED;
    /** Until the outstanding staging lease comes back. */
    long stagingLease = NOT_ARMED;
    /** Until the gateway returns its completion reference or put view. */
    long ref = NOT_ARMED;

    /** The earliest deadline that counts now, or {@link Long#MAX_VALUE}; mirrored into {@link #slot}. */
    private long earliest = Long.MAX_VALUE;
    /** The session's slot in {@link #slots} while it lives, -1 before and after. */
    private int slot = -1;
    private final DeadlineSlots slots;

    SessionDeadlines(DeadlineSlots slots) {
        this.slots = slots;
    }

    /**
     * Recomputes the earliest deadline after any deadline or pin change: prep and exec count until the session is
     * marked, the lease deadline while a staging lease is out, the reference deadline while the gateway holds one.
     */
    void recompute(boolean reapPending, boolean stagingLeaseOut, boolean referenceHeld) {
        long next = Long.MAX_VALUE;
        if (!reapPending) {
            next = earlier(next, prep);
            next = earlier(next, exec);
        }
        if (stagingLeaseOut) {
            next = earlier(next, stagingLease);
        }
        if (referenceHeld) {
            next = earlier(next, ref);
        }
        if (next != earliest) {
            earliest = next;
            if (slot >= 0) {
                slots.setDeadline(slot, next);
            }
        }
    }

    /** True when the prep or exec deadline is armed and {@code now} is past it. */
    boolean prepOrExecPassed(long now) {
        return (prep != NOT_ARMED && now > prep) || (exec != NOT_ARMED && now > exec);
    }

    /** Takes the reaper slot for {@code owner}; its deadlines become visible to the scan. */
    void takeSlot(Session owner) {
        slot = slots.allocate(owner);
        slots.setDeadline(slot, earliest);
    }

    /** Gives the reaper slot back (at teardown, or when PREPARE rolls back). */
    void releaseSlot() {
        if (slot >= 0) {
            slots.free(slot);
            slot = -1;
        }
    }

    /** The earliest deadline that counts now ({@link Long#MAX_VALUE} when none): what the reaper's slot holds. */
    long earliest() {
        return earliest;
    }

    private static long earlier(long current, long deadline) {
        return deadline != NOT_ARMED && deadline < current ? deadline : current;
    }
}
