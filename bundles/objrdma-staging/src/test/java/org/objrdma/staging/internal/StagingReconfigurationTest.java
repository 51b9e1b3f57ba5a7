package org.objrdma.staging.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.staging.internal.TestSupport.ALICE;
import static org.objrdma.staging.internal.TestSupport.BOB;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingStatus;
import org.objrdma.testsupport.FakeTransport;

/**
 * {@code @Modified} of the staging pool driven as SCR drives it: limits and the other settings change live in
 * the running pool, a change of the size classes builds a new pool behind the same component while leases of
 * the previous one keep working and return to it, and a bad value is refused keeping the old settings.
 */
class StagingReconfigurationTest {

    private static final long KIB64 = 65536;
    /** A pool of 4 KiB..64 KiB classes where one principal may hold one 64 KiB buffer, and no borrow waits. */
    private static final Map<String, Object> TIGHT = Map.of("max_buffer_size", KIB64, "max_bytes_per_principal", KIB64,
            "max_total_bytes", 4 * KIB64, "borrow_wait", 0L, "shutdown_timeout", 100L);

    private final FakeTransport transport = TestSupport.recordingTransport("t");
    private final StagingPoolComponent pool = new StagingPoolComponent();

    @AfterEach
    void deactivate() {
        pool.deactivate();
    }

    private void activate(Map<String, Object> config) {
        pool.bindTransport(transport);
        pool.activate(TestSupport.config(config));
    }

    private void modify(Map<String, Object> base, Object... changes) {
        Map<String, Object> next = new HashMap<>(base);
        for (int i = 0; i < changes.length; i += 2) {
            next.put((String) changes[i], changes[i + 1]);
        }
        pool.modified(TestSupport.config(next));
    }

    @Test
    void aHigherPrincipalLimitAppliesLiveToTheSamePool() throws Exception {
        activate(TIGHT);
        StagingLease first = pool.borrow(KIB64, ALICE, "s1");
        StagingException limit = assertThrows(StagingException.class, () -> pool.borrow(4096, ALICE, "s2"));
        assertEquals(StagingStatus.LIMIT, limit.status());
        assertTrue(limit.getMessage().contains("max.bytes.per.principal (65536"), limit.getMessage());

        modify(TIGHT, "max_bytes_per_principal", 2 * KIB64);
        StagingLease second = pool.borrow(4096, ALICE, "s2");
        assertTrue(first.isActive(), "a lease out is untouched by a live change");
        assertEquals(2, pool.stats().borrows(), "the same pool: its borrow count went on");
        first.release();
        second.release();
        assertEquals(0, pool.stats().borrowed());
    }

    @Test
    void aLowerLimitHoldsBackNewBorrowsAndKeepsWhatIsLent() throws Exception {
        activate(TIGHT);
        StagingLease a = pool.borrow(4096, ALICE, "a");
        StagingLease b = pool.borrow(4096, ALICE, "b");
        modify(TIGHT, "max_bytes_per_principal", KIB64, "max_buffers_per_principal_per_class", 2);
        assertTrue(a.isActive() && b.isActive());
        StagingException e = assertThrows(StagingException.class, () -> pool.borrow(4096, ALICE, "c"));
        assertTrue(e.getMessage().contains("max.buffers.per.principal.per.class (2"), e.getMessage());
        pool.borrow(4096, BOB, "other principal").release();
        a.release();
        pool.borrow(4096, ALICE, "c").release();
        b.release();
    }

    @Test
    void aRaisedLimitGrantsABorrowThatIsWaitingForIt() throws Exception {
        activate(TIGHT);
        StagingLease held = pool.borrow(KIB64, ALICE, "held");
        CompletableFuture<StagingLease> waiting = borrowWaiting(4096);
        awaitQueued(pool);
        modify(TIGHT, "max_bytes_per_principal", 2 * KIB64);
        StagingLease granted = waiting.get(20, TimeUnit.SECONDS);
        assertTrue(granted.isActive());
        granted.release();
        held.release();
    }

    @Test
    void aBadValueIsRefusedAndTheOldSettingsStay() throws Exception {
        activate(TIGHT);
        StagingPoolConfigSnapshot before = StagingPoolConfigSnapshot.of(pool);
        modify(TIGHT, "max_bytes_per_principal", 8 * KIB64); // above max.total.bytes
        modify(TIGHT, "idle_per_class", 0);
        modify(TIGHT, "max_buffer_size", 3 * KIB64); // not a power of two: refused, no rebuild either
        assertEquals(before, StagingPoolConfigSnapshot.of(pool));
        StagingLease one = pool.borrow(KIB64, ALICE, "one");
        StagingException still = assertThrows(StagingException.class, () -> pool.borrow(4096, ALICE, "two"));
        assertTrue(still.getMessage().contains("max.bytes.per.principal (65536"), still.getMessage());
        one.release();
    }

    @Test
    void newSizeClassesBuildANewPoolWhileOldLeasesKeepWorkingAndReturnToTheirs() throws Exception {
        activate(TIGHT);
        StagingLease old = pool.borrow(KIB64, ALICE, "old");
        pool.borrow(4096, BOB, "idle after this").release();
        assertEquals(2, transport.regionCount());

        modify(TIGHT, "max_buffer_size", 2 * KIB64, "max_bytes_per_principal", 2 * KIB64);
        assertEquals(2 * KIB64, pool.maxBufferSize(), "the new classes serve at once");
        assertEquals(1, transport.regionCount(), "of the old pool only the lent buffer is left: its idle one went at once");
        StagingLease big = pool.borrow(100_000, BOB, "new");
        assertEquals(2 * KIB64, big.region().length());
        assertEquals(1, pool.stats().borrows(), "the pool is new: one borrow so far");

        // the old lease still works and goes back to its own pool, which then closes and frees it
        old.segment().fill((byte) 7);
        assertEquals(7, old.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, KIB64 - 1));
        int deregistered = transport.deregistered();
        assertTrue(old.release());
        assertEquals(deregistered + 1, transport.deregistered(), "the old pool freed its last buffer");
        assertFalse(old.isActive());
        big.release();
        assertEquals(1, pool.stats().idle(), "the new pool keeps its own idle buffer");
    }

    @Test
    void aBorrowWaitingInThePoolARebuildRetiresIsServedByTheNewOne() throws Exception {
        activate(TIGHT);
        StagingLease held = pool.borrow(KIB64, ALICE, "held");
        CompletableFuture<StagingLease> waiting = borrowWaiting(4096);
        awaitQueued(pool);
        modify(TIGHT, "min_buffer_size", 8192L);
        StagingLease served = waiting.get(20, TimeUnit.SECONDS);
        assertEquals(8192, served.region().length(), "served by the new pool's smallest class");
        served.release();
        held.release();
    }

    @Test
    void anUnchangedConfigurationChangesNothing() throws Exception {
        activate(TIGHT);
        StagingLease l = pool.borrow(4096, ALICE, "l");
        BufferPool before = pool.currentPool();
        modify(TIGHT);
        assertSame(before, pool.currentPool());
        l.release();
    }

    /** A borrow for ALICE on another thread that may wait up to 30 s. */
    private CompletableFuture<StagingLease> borrowWaiting(long size) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return pool.borrow(size, ALICE, "waiting", Duration.ofSeconds(30));
            } catch (StagingException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    private static void awaitQueued(StagingPoolComponent c) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (c.currentPool().ledger().queuedCharges() == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the borrow never queued");
            }
            Thread.sleep(5);
        }
    }

    /** What a component's pool is configured with, for before/after comparisons. */
    private record StagingPoolConfigSnapshot(StagingSettings settings, LimitLedger.Limits limits) {
        static StagingPoolConfigSnapshot of(StagingPoolComponent c) {
            return new StagingPoolConfigSnapshot(c.currentPool().settings(), c.currentPool().ledger().limits());
        }
    }
}
