package org.objrdma.cuobj;

import java.util.List;

/**
 * What {@link CuObjServer#pollEvents} returns: unlike the C {@code poll}, it says how many events were filled
 * even when one of them failed.
 *
 * @param result the C return value: the number of events, or a negative errno ({@code -EIO} when an event
 *               failed, {@code -ENODEV}, {@code -EINVAL})
 * @param events the events taken off the channel, failed ones included; empty for {@code -ENODEV}/{@code -EINVAL}
 */
public record CuObjPollResult(int result, List<CuObjAsyncEvent> events) {
    public CuObjPollResult {
        events = List.copyOf(events);
    }
}
