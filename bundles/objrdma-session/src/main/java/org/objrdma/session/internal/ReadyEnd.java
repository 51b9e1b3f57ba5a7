package org.objrdma.session.internal;

import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyResponse;

/**
 * How a session took the end of its data phase ({@link Session#endReady}).
 *
 * @param outcome   the outcome the session recorded (WIRE_FAIL when its transport went away meanwhile)
 * @param response  the answer of a successful READY; null otherwise
 * @param tornDown  true when shutdown had already torn the session down around the data phase
 */
record ReadyEnd(ReadyOutcome outcome, ReadyResponse response, boolean tornDown) {
    static final ReadyEnd TORN_DOWN = new ReadyEnd(ReadyOutcome.WIRE_FAIL, null, true);

    static ReadyEnd ok(ReadyResponse response) {
        return new ReadyEnd(ReadyOutcome.OK, response, false);
    }

    static ReadyEnd failed(ReadyOutcome outcome) {
        return new ReadyEnd(outcome, null, false);
    }
}
