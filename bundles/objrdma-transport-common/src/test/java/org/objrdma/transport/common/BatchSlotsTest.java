package org.objrdma.transport.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;

class BatchSlotsTest {

    private final List<String> events = new ArrayList<>();

    private BatchSlots twoRequests() {
        return new BatchSlots(new long[] {7, 8}, new Opcode[] {Opcode.WRITE, Opcode.READ}, () -> events.add("end"));
    }

    private static Completion ok(long wrId, WcOpcode op) {
        return new Completion(wrId, WcStatus.SUCCESS, op, 0, false, 0, 0);
    }

    @Test
    void theLastRecordSaysFinishAndTheResultKeepsRequestOrder() throws Exception {
        BatchSlots b = twoRequests();
        assertFalse(b.record(1, ok(8, WcOpcode.RDMA_READ)));
        assertFalse(b.record(1, ok(8, WcOpcode.RDMA_READ)), "a slot fills once");
        assertTrue(b.record(0, ok(7, WcOpcode.RDMA_WRITE)));
        assertFalse(b.future().isDone(), "finishing is the caller's step");
        assertTrue(b.finish());
        assertFalse(b.finish());
        BatchResult r = b.future().get();
        assertFalse(r.timedOut());
        assertEquals(List.of(7L, 8L), r.completions().stream().map(Completion::wrId).toList());
        assertEquals(List.of("end"), events);
    }

    @Test
    void abandonFillsTheEmptySlotsRunsItsStepFirstAndDropsLateCompletions() throws Exception {
        BatchSlots b = twoRequests();
        b.record(0, ok(7, WcOpcode.RDMA_WRITE));
        assertTrue(b.abandon(WcStatus.RESP_TIMEOUT_ERR, true, () -> events.add("before")));
        assertFalse(b.record(1, ok(8, WcOpcode.RDMA_READ)), "late completion dropped");
        assertFalse(b.abandon(WcStatus.WR_FLUSH_ERR, false, () -> events.add("again")));
        BatchResult r = b.future().get();
        assertTrue(r.timedOut());
        assertEquals(WcStatus.SUCCESS, r.completions().get(0).status());
        assertEquals(WcStatus.RESP_TIMEOUT_ERR, r.completions().get(1).status());
        assertEquals(WcOpcode.RDMA_READ, r.completions().get(1).opcode());
        assertEquals(8L, r.completions().get(1).wrId());
        assertEquals(List.of("before", "end"), events);
        assertTrue(b.isDone());
    }

    @Test
    void mismatchedIdsAndOpcodesAreRefused() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new BatchSlots(new long[1], new Opcode[2], null));
    }
}
