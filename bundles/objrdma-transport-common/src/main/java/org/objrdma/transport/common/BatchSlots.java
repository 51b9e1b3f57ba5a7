package org.objrdma.transport.common;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/**
 * The result slots of one {@code Channel.submit}: one per request, filled by whichever thread sees its
 * completion, and a future completed exactly once — when every slot is filled ({@link #finish}) or early
 * ({@link #abandon}: at the deadline, on a reset or close), the empty slots then getting one failure status.
 * A completion arriving after that is dropped. How and when the deadline fires is the transport's business
 * (a timer in TCP, the completion poller in verbs); what the slots promise is the same in both.
 *
 * <p>{@code onEnd} runs once, after the batch is claimed and before its future completes (the channel stops
 * tracking it), so whoever waits on the future sees it untracked.
 */
public final class BatchSlots {
    private final long[] wrIds;
    private final Opcode[] opcodes;
    private final Runnable onEnd;
    private final Completion[] results;
    private final CompletableFuture<BatchResult> future = new CompletableFuture<>();
    private int remaining;
    private boolean done;

    /** Slots for requests with these work-request ids and opcodes (index for index). */
    public BatchSlots(long[] wrIds, Opcode[] opcodes, Runnable onEnd) {
        if (wrIds.length != opcodes.length) {
            throw new IllegalArgumentException(wrIds.length + " ids for " + opcodes.length + " opcodes");
        }
        this.wrIds = wrIds.clone();
        this.opcodes = opcodes.clone();
        this.onEnd = onEnd == null ? () -> { } : onEnd;
        this.results = new Completion[wrIds.length];
        this.remaining = wrIds.length;
    }

    /** Slots for {@code requests}, in their order. */
    public static BatchSlots of(List<WorkRequest> requests, Runnable onEnd) {
        long[] ids = new long[requests.size()];
        Opcode[] ops = new Opcode[ids.length];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = requests.get(i).wrId();
            ops[i] = requests.get(i).opcode();
        }
        return new BatchSlots(ids, ops, onEnd);
    }

    public CompletableFuture<BatchResult> future() {
        return future;
    }

    public int size() {
        return results.length;
    }

    /**
     * Records request {@code index}'s completion. True when that filled the last slot: the caller then calls
     * {@link #finish} (now, or from another thread). False if the slot was filled already or the batch ended.
     */
    public synchronized boolean record(int index, Completion completion) {
        if (done || results[index] != null) {
            return false;
        }
        results[index] = completion;
        return --remaining == 0;
    }

    /** A failed completion for request {@code index} as posted: for a request the device or peer never saw. */
    public Completion failure(int index, WcStatus status) {
        return Completion.failure(wrIds[index], status, WcOpcode.forRequest(opcodes[index]));
    }

    public synchronized boolean isDone() {
        return done;
    }

    /** Completes the future with the slots as they are (every one filled); false if the batch had ended. */
    public boolean finish() {
        List<Completion> list;
        synchronized (this) {
            if (done) {
                return false;
            }
            done = true;
            list = Arrays.asList(results.clone());
        }
        onEnd.run();
        future.complete(new BatchResult(list, false));
        return true;
    }

    /**
     * Ends the batch early: every empty slot gets {@code status}; {@code timedOut} is what the result reports.
     * {@code beforeCompleting} runs after the batch is claimed and before the future completes, so whoever
     * waits on it sees its effects (the channel in ERROR). False, and nothing run, if the batch had ended.
     */
    public boolean abandon(WcStatus status, boolean timedOut, Runnable beforeCompleting) {
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
        onEnd.run();
        future.complete(new BatchResult(list, timedOut));
        return true;
    }
}
