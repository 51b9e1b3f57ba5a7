package org.objrdma.transport.tcp.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.transport.common.BatchSlots;

/**
 * One {@code submit} on a TCP channel: its result slots ({@link BatchSlots}, shared with verbs: the future
 * completes once every slot is filled, or at the deadline with {@link WcStatus#RESP_TIMEOUT_ERR} in the empty
 * slots; late completions are dropped) plus what TCP adds: the deadline is a timer, cancelled when the batch
 * completes first.
 */
final class Batch {
    private final BatchSlots slots;
    private ScheduledFuture<?> deadline; // guarded by this
    private boolean ended;               // guarded by this

    Batch(List<WorkRequest> requests) {
        this.slots = BatchSlots.of(requests, this::cancelDeadline);
    }

    CompletableFuture<BatchResult> future() {
        return slots.future();
    }

    CompletionSink slot(int index) {
        return c -> {
            if (slots.record(index, c)) {
                slots.finish();
            }
        };
    }

    synchronized void deadline(ScheduledFuture<?> timer) {
        if (timer == null) {
            return;
        }
        if (ended) {
            timer.cancel(false);
        } else {
            deadline = timer;
        }
    }

    private synchronized void cancelDeadline() {
        ended = true;
        if (deadline != null) {
            deadline.cancel(false);
        }
    }

    /**
     * Ends the batch at its deadline if it is still open: runs {@code beforeReport} (which puts the channel in
     * error, so the state is ERROR when the caller sees the result), then completes the future.
     */
    void expire(Runnable beforeReport) {
        slots.abandon(WcStatus.RESP_TIMEOUT_ERR, true, beforeReport);
    }
}
