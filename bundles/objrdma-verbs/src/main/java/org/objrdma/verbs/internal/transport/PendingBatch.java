package org.objrdma.verbs.internal.transport;

import java.util.concurrent.CompletableFuture;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.transport.common.BatchSlots;

/**
 * One {@code Channel.submit} in flight on a verbs channel: its result slots ({@link BatchSlots}, shared with
 * the TCP transport: filled by whichever thread polls the completion, completed once — when every slot is
 * filled, at the deadline, or when the channel closes) plus what verbs adds: the deadline the completion
 * poller checks, and the reset epoch it was posted in.
 */
final class PendingBatch {
    final VerbsChannel channel;
    final long deadlineNanos;
    final CompletableFuture<BatchResult> future;
    /** The channel's reset epoch when the batch was posted (set under the post lock, before the poller sees it). */
    long epoch;

    private final BatchSlots slots;

    PendingBatch(VerbsChannel channel, long[] wrIds, Opcode[] opcodes, long deadlineNanos) {
        this.channel = channel;
        this.deadlineNanos = deadlineNanos;
        this.slots = new BatchSlots(wrIds, opcodes, () -> channel.batchEnded(this));
        this.future = slots.future();
    }

    /** Records request {@code index}'s completion; true when that was the last one and the batch may finish. */
    boolean record(int index, Completion completion) {
        return slots.record(index, completion);
    }

    /** A failed completion for request {@code index} as posted, for requests the device never saw. */
    Completion failure(int index, WcStatus status) {
        return slots.failure(index, status);
    }

    boolean isDone() {
        return slots.isDone();
    }

    /** Completes the future with every result; false if it was already completed. */
    boolean finish() {
        return slots.finish();
    }

    /** {@link BatchSlots#abandon}: every request without a completion gets {@code status}. */
    boolean abandon(WcStatus status, boolean timedOut, Runnable beforeCompleting) {
        return slots.abandon(status, timedOut, beforeCompleting);
    }
}
