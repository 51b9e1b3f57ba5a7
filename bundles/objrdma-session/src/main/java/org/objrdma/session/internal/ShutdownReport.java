package org.objrdma.session.internal;

import java.util.List;

/**
 * What a bounded shutdown did.
 *
 * @param liveAtStart sessions live when shutdown began
 * @param drained     sessions that ended normally within the shutdown timeout
 * @param abandoned   one line per session torn down by force when the timeout passed: its id and what
 *                    still held it (a staging lease or put view the gateway never returned, a READY
 *                    data phase still running, a completion reference never finalized)
 */
public record ShutdownReport(int liveAtStart, int drained, List<String> abandoned) {
    public ShutdownReport {
        abandoned = List.copyOf(abandoned);
    }

    public boolean clean() {
        return abandoned.isEmpty();
    }
}
