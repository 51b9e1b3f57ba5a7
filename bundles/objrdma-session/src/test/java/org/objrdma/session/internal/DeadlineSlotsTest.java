package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.SessionId;

/** The reaper's dense slot table: recycling, capacity, and visiting exactly the due sessions. */
class DeadlineSlotsTest {

    private static Session session(DeadlineSlots slots, int n) {
        return new Session(new SessionId(String.format("%032x", n)), SessionPlan.of(n, PrincipalId.fromCanonical("p"),
                Op.GET, "/t", 0, 1, 1, 1, null, null, 0, null, null, null, 0, null, 0, 0, null, null), slots);
    }

    @Test
    void visitsOnlyDueSlotsAndRecyclesFreedOnes() {
        DeadlineSlots slots = new DeadlineSlots(10_000);
        List<Session> all = new ArrayList<>();
        for (int i = 0; i < 9_000; i++) {
            Session s = session(slots, i);
            synchronized (s) {
                s.admit(1_000 + i);
            }
            all.add(s);
        }
        Set<Session> due = new HashSet<>();
        slots.forEachDue(d -> d < 1_100, due::add);
        assertEquals(100, due.size());
        assertTrue(due.containsAll(all.subList(0, 100)));
        for (Session s : all.subList(0, 4_500)) {
            synchronized (s) {
                s.releaseSlot();
            }
        }
        due.clear();
        slots.forEachDue(d -> d < 1_100, due::add);
        assertEquals(0, due.size(), "freed slots are never due");
        for (int i = 0; i < 4_500; i++) {
            Session s = session(slots, 100_000 + i);
            synchronized (s) {
                s.admit(Session.NOT_ARMED);
            }
        }
        assertEquals(9_000, slots.highWater(), "freed slots are reused before new ones");
    }

    @Test
    void neverHandsOutMoreThanItsCapacity() {
        DeadlineSlots slots = new DeadlineSlots(3);
        for (int i = 0; i < 3; i++) {
            slots.allocate(session(slots, i));
        }
        assertThrows(IllegalStateException.class, () -> slots.allocate(session(slots, 9)));
    }

    @Test
    void concurrentAllocateAndFreeNeverShareASlot() throws Exception {
        DeadlineSlots slots = new DeadlineSlots(64);
        Set<Integer> held = ConcurrentHashMap.newKeySet();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int seed = t;
            workers.add(pool.submit(() -> {
                for (int i = 0; i < 100_000; i++) {
                    int slot = slots.allocate(session(slots, seed));
                    assertTrue(held.add(slot), "slot " + slot + " handed out twice");
                    held.remove(slot);
                    slots.free(slot);
                }
                return null;
            }));
        }
        for (Future<?> w : workers) {
            w.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertTrue(slots.highWater() <= 4, "at most one slot per thread was ever needed: " + slots.highWater());
    }
}
