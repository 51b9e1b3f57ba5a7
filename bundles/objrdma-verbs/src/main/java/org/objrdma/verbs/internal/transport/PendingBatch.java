package org.objrdma.verbs.internal.transport;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;

/**
 * One {@code Channel.submit} in flight: a result slot per request, filled by whichever thread polls the
 * completion, and a future completed once — when every slot is filled, at the deadline, or when the channel
 * closes. Later completions of an already finished batch (the flushes after a timeout) are ignored.
 */
final class PendingBatch {
    final VerbsChannel channel;
    final long deadlineNanos;
    final CompletableFuture<BatchResult> future = new CompletableFuture<>();
    /** The channel's reset epoch when the batch was posted (set under the post lock, before the poller sees it). */
    long epoch;

    private final long[] wrIds;
    private final Opcode[] opcodes;
    private final Completion[] results;
    private int remaining;
    private boolean done;

    PendingBatch(VerbsChannel channel, long[] wrIds, Opcode[] opcodes, long deadlineNanos) {
        this.channel = channel;
        this.wrIds = wrIds;
        this.opcodes = opcodes;
        this.results = new Completion[wrIds.length];
        this.remaining = wrIds.length;
        this.deadlineNanos = deadlineNanos;
    }

    /** Records request {@code index}'s completion; true when that was the last one and the batch may finish. */
    synchronized boolean record(int index, Completion completion) {
        if (done || results[index] != null) {
            return false;
        }
        results[index] = completion;
        return --remaining == 0;
    }

    /** A failed completion for request {@code index} as posted, for requests the device never saw. */
    Completion failure(int index, WcStatus status) {
        return Completion.failure(wrIds[index], status, WcOpcode.forRequest(opcodes[index]));
    }

    synchronized boolean isDone() {
        return done;
    }

    /** Completes the future with every result; false if it was already completed. */
    boolean finish() {
        List<Completion> list;
        synchronized (this) {
            if (done) {
                return false;
            }
            done = true;
            list = Arrays.asList(results.clone());
        }
        channel.batchEnded(this);
        future.complete(new BatchResult(list, false));
        return true;
    }

    /**
     * Ends the batch early: every request without a completion gets {@code status}. {@code timedOut} is what
     * the {@link BatchResult} reports. {@code beforeCompleting} runs after the batch is claimed and before the
     * future completes, so whoever waits on the future sees its effects (the channel in ERROR). False, and
     * nothing run, if the batch had already finished.
     */
    boolean abandon(WcStatus status, boolean timedOut, Runnable beforeCompleting) {
        List<Completion> list;
        synchronized (this) {
            if (done) {
                return false;
            }
            done = true;
            Completion[] filled = results.clone();
            for (int i = 0; i < filled.length; i++) {
                if (filled[i] == null) {
                    filled[i] = failure(i, status);
                }
            }
            list = Arrays.asList(filled);
        }
        beforeCompleting.run();
        channel.batchEnded(this);
        future.complete(new BatchResult(list, timedOut));
        return true;
    }
}
