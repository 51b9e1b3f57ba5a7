package org.objrdma.verbs.internal.transport;

import java.util.concurrent.CompletableFuture;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/**
 * The bookkeeping of one work queue (send or receive) of a {@link VerbsChannel}: slot {@code seq % capacity}
 * describes the request with sequence number {@code seq} — the caller's id, opcode and length, and the batch it
 * belongs to — since the device only ever sees the sequence number. The poster writes a slot and then publishes
 * it by advancing {@code head} (volatile) before the post; the completion side reads {@code head} first, so it
 * sees the slot. {@code tail} is advanced by the completion side only.
 */
final class SlotRing {
    final int capacity;
    final long[] userWrId;
    final Opcode[] opcode;
    final boolean[] signaled;
    final long[] length;
    final PendingBatch[] batch;
    final int[] batchIndex;
    /** A memory-window request the channel posted for a grant: its completion goes here, not to the user. */
    final CompletableFuture<WcStatus>[] window;
    volatile long head;
    volatile long tail;

    SlotRing(int capacity) {
        this.capacity = capacity;
        userWrId = new long[capacity];
        opcode = new Opcode[capacity];
        signaled = new boolean[capacity];
        length = new long[capacity];
        batch = new PendingBatch[capacity];
        batchIndex = new int[capacity];
        @SuppressWarnings("unchecked")
        CompletableFuture<WcStatus>[] w = new CompletableFuture[capacity];
        window = w;
    }

    int index(long seq) {
        return (int) (seq % capacity);
    }

    int free() {
        return capacity - (int) (head - tail);
    }

    int outstanding() {
        return (int) (head - tail);
    }

    void set(int slot, WorkRequest r, boolean isSignaled, PendingBatch b, int bIndex) {
        userWrId[slot] = r.wrId();
        opcode[slot] = r.opcode();
        signaled[slot] = isSignaled;
        length[slot] = r.byteLength();
        batch[slot] = b;
        batchIndex[slot] = bIndex;
    }

    void clear(int slot) {
        batch[slot] = null;
        opcode[slot] = null;
        window[slot] = null;
    }

    /** Forgets the slots {@code [from, to)} written but not posted, and moves {@code head} back to {@code from}. */
    void unwind(long from, long to) {
        for (long s = from; s < to; s++) {
            clear(index(s));
        }
        head = from;
    }
}
