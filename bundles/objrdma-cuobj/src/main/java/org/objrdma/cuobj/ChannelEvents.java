package org.objrdma.cuobj;

import java.util.ArrayList;
import java.util.List;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.cuobj.internal.FacadeChannels;
import org.objrdma.cuobj.internal.ServerSession;
import org.objrdma.wire.Errno;

/** Taking asynchronous completions off a channel's queue, as {@code poll} returns them (order of checks in C). */
final class ChannelEvents {
    private ChannelEvents() {
    }

    /**
     * Up to {@code min(maxEvents, 16, room)} events of {@code channel}; {@code -ENODEV} without a session or an
     * available transport, {@code -EINVAL} for {@code maxEvents < 0} or a channel not allocated, {@code -EIO} when
     * a taken event failed (it is the last one returned; the rest stay queued).
     */
    static CuObjPollResult take(ServerSession s, Transport t, int maxEvents, int channel, int room) {
        if (s == null || t == null || !t.isAvailable()) {
            return new CuObjPollResult(-Errno.ENODEV, List.of());
        }
        FacadeChannels.Slot slot = s.channels().allocatedSlot(channel);
        if (maxEvents < 0 || slot == null) {
            return new CuObjPollResult(-Errno.EINVAL, List.of());
        }
        int limit = Math.min(Math.min(maxEvents, CuObj.MAX_POLL_EVENTS), room);
        List<CuObjAsyncEvent> out = new ArrayList<>(Math.max(0, limit));
        while (out.size() < limit) {
            FacadeChannels.Event e = slot.next();
            if (e == null) {
                break;
            }
            out.add(new CuObjAsyncEvent(e.asyncHandle(), e.status()));
            if (e.status() != WcStatus.SUCCESS.code()) {
                return new CuObjPollResult(-Errno.EIO, out);
            }
        }
        return new CuObjPollResult(out.size(), out);
    }
}
