package org.objrdma.transport.tcp.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/**
 * Collects the completions of one {@code submit}: the future completes once every slot is filled, or at
 * the deadline with {@link WcStatus#RESP_TIMEOUT_ERR} in the empty slots. Late completions after the
 * deadline are dropped.
 */
final class Batch {
    private final List<WorkRequest> requests;
    private final Completion[] slots;
    private final CompletableFuture<BatchResult> future = new CompletableFuture<>();
    private int missing;
    private boolean finished;
    private ScheduledFuture<?> deadline;

    Batch(List<WorkRequest> requests) {
        this.requests = requests;
        this.slots = new Completion[requests.size()];
        this.missing = slots.length;
    }

    CompletableFuture<BatchResult> future() {
        return future;
    }

    CompletionSink slot(int index) {
        return c -> fill(index, c);
    }

    synchronized void deadline(ScheduledFuture<?> timer) {
        if (timer == null) {
            return;
        }
        if (finished) {
            timer.cancel(false);
        } else {
            deadline = timer;
        }
    }

    private void fill(int index, Completion c) {
        BatchResult result;
        synchronized (this) {
            if (finished || slots[index] != null) {
                return;
            }
            slots[index] = c;
            if (--missing > 0) {
                return;
            }
            finished = true;
            if (deadline != null) {
                deadline.cancel(false);
            }
            result = new BatchResult(Arrays.asList(slots), false);
        }
        future.complete(result);
    }

    /**
     * Ends the batch at its deadline if it is still open: runs {@code beforeReport} (which puts the channel in
     * error, so the state is ERROR when the caller sees the result), then completes the future.
     */
    void expire(Runnable beforeReport) {
        BatchResult result;
        synchronized (this) {
            if (finished) {
                return;
            }
            finished = true;
            List<Completion> all = new ArrayList<>(slots.length);
            for (int i = 0; i < slots.length; i++) {
                WorkRequest r = requests.get(i);
                all.add(slots[i] != null ? slots[i]
                        : Completion.failure(r.wrId(), WcStatus.RESP_TIMEOUT_ERR, WcOpcode.forRequest(r.opcode())));
            }
            result = new BatchResult(all, true);
        }
        beforeReport.run();
        future.complete(result);
    }
}
