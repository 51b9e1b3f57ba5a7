package org.objrdma.staging.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.objrdma.staging.internal.TestSupport.ALICE;
import static org.objrdma.staging.internal.TestSupport.BOB;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.staging.StagingStatus;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.transport.Access;
import org.objrdma.testsupport.FakeRegion;
import org.objrdma.testsupport.CountingTelemetry;
import org.objrdma.testsupport.FakeClock;
import org.objrdma.staging.internal.TestSupport.RecordingReports;
import org.objrdma.staging.internal.TestSupport.SettingsBuilder;
import org.objrdma.testsupport.FakeTransport;

class BufferPoolTest {

    private final FakeTransport transport = TestSupport.recordingTransport("rec-1");
    private final CountingTelemetry telemetry = new CountingTelemetry();
    private final FakeClock clock = new FakeClock();
    private final RecordingReports reports = new RecordingReports();
    private final List<BufferPool> pools = new ArrayList<>();
    /** Own threads: the common pool may have a single thread on a small machine, and these tasks block. */
    private final ExecutorService threads = Executors.newCachedThreadPool();

    private BufferPool pool(SettingsBuilder b) {
        BufferPool p = new BufferPool(b.build(), transport, () -> telemetry, clock, reports);
        pools.add(p);
        return p;
    }

    private BufferPool pool() {
        return pool(new SettingsBuilder());
    }

    @AfterEach
    void closePools() {
        pools.forEach(BufferPool::shutdown);
        threads.shutdownNow();
    }

    private static StagingException refused(StagingStatus expected, Execution call) {
        StagingException e = assertThrows(StagingException.class, call::run);
        assertEquals(expected, e.status(), e.getMessage());
        return e;
    }

    @FunctionalInterface
    interface Execution {
        void run() throws Exception;
    }

    // ------------------------------------------------------------ basic lending

    @Test
    void borrowLendsAPageAlignedRegisteredBufferOfTheSizeClass() throws Exception {
        BufferPool p = pool();
        StagingLease lease = p.borrow(5000, ALICE, "session-1");
        assertEquals(5000, lease.size());
        assertEquals(5000, lease.segment().byteSize());
        assertEquals(0, lease.segment().address() % 4096, "page aligned");
        assertEquals(8192, lease.region().length(), "the registration covers the whole size class");
        assertEquals(lease.segment().address(), lease.region().address());
        assertEquals(java.util.EnumSet.of(Access.LOCAL_WRITE),
                lease.region().access());
        assertEquals("rec-1", lease.region().transportName());
        assertEquals(ALICE, lease.principal());
        assertEquals("session-1", lease.holderHint());
        assertEquals(clock.instant(), lease.borrowedAt());
        assertTrue(lease.isActive());
        lease.segment().set(ValueLayout.JAVA_LONG, 4992, 42L); // the whole requested size is usable
        assertEquals(1, transport.registered());

        assertTrue(lease.release());
        assertFalse(lease.isActive());
        StagingStats s = p.stats();
        assertEquals(0, s.borrowed());
        assertEquals(1, s.idle());
        assertEquals(1, s.borrows());
        assertEquals(8192, s.bytesAllocated());
        assertEquals(1, telemetry.value(Counter.STAGING_BORROWS));
        assertEquals(1, telemetry.value(Counter.STAGING_RETURNS));
    }

    @Test
    void aReturnedBufferIsLentAgainWithoutRegisteringAgain() throws Exception {
        BufferPool p = pool();
        StagingLease first = p.borrow(4096, ALICE, "s1");
        long address = first.segment().address();
        first.release();
        StagingLease second = p.borrow(100, BOB, "s2");
        assertEquals(address, second.segment().address());
        assertEquals(1, transport.registered());
        assertEquals(0, transport.deregistered());
        second.release();
        assertEquals(2, p.stats().borrows());
    }

    @Test
    void statsCountBuffersAndBytesPerClass() throws Exception {
        BufferPool p = pool();
        StagingLease a = p.borrow(4096, ALICE, "a");
        StagingLease b = p.borrow(10_000, ALICE, "b");
        StagingLease c = p.borrow(10_000, BOB, "c");
        c.release();
        StagingStats s = p.stats();
        assertEquals(2, s.borrowed());
        assertEquals(1, s.idle());
        assertEquals(4096 + 16384, s.bytesBorrowed());
        assertEquals(4096 + 2 * 16384, s.bytesAllocated());
        assertEquals(5, s.classes().size()); // 4K, 8K, 16K, 32K, 64K
        assertEquals(new StagingStats.SizeClass(4096, 1, 0), s.classes().get(0));
        assertEquals(new StagingStats.SizeClass(16384, 1, 1), s.classes().get(2));
        assertEquals(4096 + 16384, p.ledger().bytesLent());
        a.release();
        b.release();
        assertEquals(0, p.ledger().bytesLent());
        assertEquals(0, p.ledger().principalsCharged());
    }

    @Test
    void returnedBufferIsZeroedBeforeItIsLentAgain() throws Exception {
        BufferPool p = pool();
        StagingLease first = p.borrow(4096, ALICE, "writer");
        first.segment().fill((byte) 0x5A);
        first.release();
        StagingLease second = p.borrow(4096, BOB, "reader");
        assertEquals(first.region().address(), second.region().address(), "same buffer");
        for (long i = 0; i < 4096; i++) {
            assertEquals(0, second.segment().get(ValueLayout.JAVA_BYTE, i), "byte " + i);
        }
        second.release();
    }

    @Test
    void withoutScrubbingTheOldBytesRemain() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.scrubOnReturn = false;
        BufferPool p = pool(b);
        StagingLease first = p.borrow(4096, ALICE, "writer");
        first.segment().fill((byte) 0x5A);
        first.release();
        StagingLease second = p.borrow(4096, BOB, "reader");
        assertEquals(0x5A, second.segment().get(ValueLayout.JAVA_BYTE, 17));
        second.release();
    }

    // ------------------------------------------------------------ bad input

    @Test
    void invalidSizesAreRefusedAndChangeNothing() {
        BufferPool p = pool();
        refused(StagingStatus.INVALID_SIZE, () -> p.borrow(0, ALICE, "s"));
        refused(StagingStatus.INVALID_SIZE, () -> p.borrow(-1, ALICE, "s"));
        StagingException e = refused(StagingStatus.INVALID_SIZE, () -> p.borrow(64 * 1024 + 1, ALICE, "s"));
        assertTrue(e.getMessage().contains("65537"), e.getMessage());
        StagingStats s = p.stats();
        assertEquals(3, s.failures());
        assertEquals(0, s.borrows());
        assertEquals(0, s.bytesAllocated());
        assertEquals(0, transport.registered());
        assertEquals(0, p.ledger().bytesLent());
        assertEquals(64 * 1024, p.maxBufferSize());
    }

    @Test
    void nullOrNegativeArgumentsAreProgrammingErrors() {
        BufferPool p = pool();
        assertThrows(NullPointerException.class, () -> p.borrow(1, null, "s"));
        assertThrows(NullPointerException.class, () -> p.borrow(1, ALICE, null));
        assertThrows(NullPointerException.class, () -> p.borrow(1, ALICE, "s", null));
        assertThrows(IllegalArgumentException.class, () -> p.borrow(1, ALICE, "s", Duration.ofMillis(-1)));
        assertEquals(0, transport.registered());
        assertEquals(0, p.ledger().bytesLent());
    }

    @Test
    void anEndlessWaitIsAcceptedWithoutOverflow() throws Exception {
        BufferPool p = pool();
        p.borrow(1, ALICE, "s", Duration.ofDays(10_000_000)).release();
        assertEquals(1, p.stats().borrows());
    }

    @Test
    void anInterruptedWaitFailsWithLimitKeepsTheInterruptAndChargesNothing() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.maxBufferSize = 4096;
        b.maxTotalBytes = 4096;
        b.maxBytesPerPrincipal = 4096;
        BufferPool p = pool(b);
        StagingLease held = p.borrow(4096, ALICE, "held");
        CompletableFuture<String> outcome = new CompletableFuture<>();
        Thread waiter = Thread.ofPlatform().start(() -> {
            try {
                p.borrow(4096, BOB, "interrupted", Duration.ofSeconds(30)).release();
                outcome.complete("lent");
            } catch (StagingException e) {
                outcome.complete(e.status() + " interrupted=" + Thread.currentThread().isInterrupted());
            }
        });
        awaitQueued(p, 1);
        waiter.interrupt();
        assertEquals("LIMIT interrupted=true", outcome.get(10, TimeUnit.SECONDS));
        assertEquals(4096, p.ledger().bytesLent(), "only the held lease is charged");
        assertEquals(0, p.ledger().queuedCharges());
        held.release();
    }

    // ------------------------------------------------------------ limits

    @Test
    void totalBytesLimitRefusesWithLimitAndChargesNothing() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.maxTotalBytes = 64 * 1024;
        b.maxBytesPerPrincipal = 64 * 1024;
        BufferPool p = pool(b);
        List<StagingLease> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            held.add(p.borrow(16 * 1024, i % 2 == 0 ? ALICE : BOB, "h" + i));
        }
        StagingException e = refused(StagingStatus.LIMIT, () -> p.borrow(1, PrincipalId.fromCanonical("carol"), "c", Duration.ZERO));
        assertTrue(e.getMessage().contains("max.total.bytes"), e.getMessage());
        assertEquals(64 * 1024, p.ledger().bytesLent());
        assertEquals(0, p.ledger().bytesLent(PrincipalId.fromCanonical("carol")));
        StagingStats s = p.stats();
        assertEquals(1, s.timeouts());
        assertEquals(1, s.waits());
        assertEquals(4, s.borrowed());
        held.forEach(StagingLease::release);
        p.borrow(1, PrincipalId.fromCanonical("carol"), "c", Duration.ZERO).release();
    }

    @Test
    void perPrincipalLimitHoldsOnePrincipalAndNotTheOthers() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.maxBufferSize = 8192;
        b.maxBytesPerPrincipal = 16 * 1024;
        b.maxTotalBytes = 64 * 1024;
        BufferPool p = pool(b);
        StagingLease a1 = p.borrow(8192, ALICE, "a1");
        StagingLease a2 = p.borrow(8192, ALICE, "a2");
        StagingException e = refused(StagingStatus.LIMIT, () -> p.borrow(4096, ALICE, "a3", Duration.ZERO));
        assertTrue(e.getMessage().contains("max.bytes.per.principal"), e.getMessage());
        assertEquals(16 * 1024, p.ledger().bytesLent(ALICE));
        StagingLease b1 = p.borrow(8192, BOB, "b1", Duration.ZERO);
        StagingLease b2 = p.borrow(8192, BOB, "b2", Duration.ZERO);
        assertEquals(16 * 1024, p.ledger().bytesLent(BOB));
        a1.release();
        StagingLease a3 = p.borrow(4096, ALICE, "a3", Duration.ZERO);
        assertEquals(8192 + 4096, p.ledger().bytesLent(ALICE));
        for (StagingLease l : List.of(a2, a3, b1, b2)) {
            l.release();
        }
        assertEquals(0, p.ledger().principalsCharged(), "no entry is kept for a principal with nothing lent");
    }

    @Test
    void anExhaustedClassLendsFromTheNextLargerOneThenRefusesNamingTheLimit() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.maxBuffersPerClass = 2;
        b.idlePerClass = 2;
        BufferPool p = pool(b);
        StagingLease x = p.borrow(4096, ALICE, "x");
        StagingLease y = p.borrow(4096, BOB, "y");
        // the 4K class is exhausted: the next one up serves, with a segment of the size asked for
        StagingLease up = p.borrow(100, BOB, "up", Duration.ZERO);
        assertEquals(8192, up.region().length());
        assertEquals(100, up.segment().byteSize());
        assertEquals(8192, p.ledger().bytesLent(BOB) - 4096, "charged as the class it got");
        StagingLease other = p.borrow(8192, BOB, "other", Duration.ZERO);
        // both 4K and 8K full now: a 4K borrow is refused, and never reaches two classes up
        StagingException e = refused(StagingStatus.LIMIT, () -> p.borrow(4096, BOB, "z", Duration.ZERO));
        assertTrue(e.getMessage().contains("max.buffers.per.class"), e.getMessage());
        StagingLease big = p.borrow(16384, BOB, "big", Duration.ZERO); // other classes are untouched
        x.release();
        StagingLease z = p.borrow(4096, BOB, "z", Duration.ZERO);
        assertEquals(4096, z.region().length(), "back in its own class once that has room");
        assertEquals(2, p.stats().classes().get(0).borrowed());
        assertEquals(2, p.stats().classes().get(1).borrowed());
        for (StagingLease l : List.of(y, z, up, other, big)) {
            l.release();
        }
        assertEquals(0, p.ledger().buffersLent());
        assertEquals(0, p.ledger().principalsCharged());
    }

    @Test
    void onePrincipalsTinyBorrowsCannotTakeAWholeClassFromAnother() throws Exception {
        // the documented defaults: 256 buffers per class, 64 per principal and class
        BufferPool p = new BufferPool(StagingSettings.defaults(), transport, () -> telemetry, clock, reports);
        pools.add(p);
        List<StagingLease> alices = new ArrayList<>();
        int refusedCount = 0;
        StagingException last = null;
        for (int i = 0; i < 256; i++) {
            try {
                alices.add(p.borrow(1, ALICE, "alice-" + i, Duration.ZERO));
            } catch (StagingException e) {
                refusedCount++;
                last = e;
            }
        }
        assertEquals(64, alices.size(), "one principal holds at most its share of the 4K class");
        assertEquals(192, refusedCount);
        assertEquals(StagingStatus.LIMIT, last.status());
        assertTrue(last.getMessage().contains("max.buffers.per.principal.per.class"), last.getMessage());
        assertTrue(alices.stream().allMatch(l -> l.region().length() == 4096), "and never spills into 8K");
        StagingLease bobs = p.borrow(1, BOB, "bob-small-get", Duration.ZERO);
        assertEquals(4096, bobs.region().length());
        assertEquals(64, p.ledger().buffersLent(ALICE, 0));
        assertEquals(1, p.ledger().buffersLent(BOB, 0));
        bobs.release();
        alices.forEach(StagingLease::release);
        assertEquals(0, p.ledger().principalsCharged());
    }

    @Test
    void whenEveryShareOfAClassIsTakenTheNextPrincipalBorrowsOneClassUp() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.maxBuffersPerClass = 4;
        b.maxBuffersPerPrincipalPerClass = 2;
        BufferPool p = pool(b);
        List<StagingLease> held = new ArrayList<>();
        for (PrincipalId who : List.of(ALICE, ALICE, BOB, BOB)) {
            held.add(p.borrow(10, who, "fill", Duration.ZERO));
        }
        refused(StagingStatus.LIMIT, () -> p.borrow(10, ALICE, "over share", Duration.ZERO));
        StagingLease carol = p.borrow(10, PrincipalId.fromCanonical("carol"), "carol", Duration.ZERO);
        assertEquals(8192, carol.region().length(), "the 4K class is exhausted: carol gets an 8K buffer");
        carol.release();
        held.forEach(StagingLease::release);
    }

    @Test
    void aBorrowOverALimitWaitsTheConfiguredTimeThenFailsWithLimit() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.maxBufferSize = 4096;
        b.maxTotalBytes = 4096;
        b.maxBytesPerPrincipal = 4096;
        b.borrowWait = Duration.ofMillis(200);
        BufferPool p = pool(b);
        StagingLease held = p.borrow(4096, ALICE, "holder");
        long start = System.nanoTime();
        refused(StagingStatus.LIMIT, () -> p.borrow(4096, BOB, "waiter"));
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(waitedMs >= 200, "waited the configured 200 ms, not " + waitedMs);
        StagingStats s = p.stats();
        assertEquals(1, s.waits());
        assertEquals(1, s.timeouts());
        assertEquals(0, s.failures());
        assertEquals(1, telemetry.value(Counter.STAGING_WAITS));
        assertEquals(1, telemetry.value(Counter.STAGING_TIMEOUTS));
        assertEquals(0, p.ledger().queuedCharges());
        held.release();
    }

    @Test
    void aWaitingBorrowGetsTheBufferWhenOneComesBack() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.maxBufferSize = 4096;
        b.maxTotalBytes = 4096;
        b.maxBytesPerPrincipal = 4096;
        BufferPool p = pool(b);
        StagingLease held = p.borrow(4096, ALICE, "holder");
        CompletableFuture<StagingLease> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return p.borrow(4096, BOB, "waiter", Duration.ofSeconds(10));
            } catch (StagingException e) {
                throw new AssertionError(e);
            }
        }, threads);
        awaitQueued(p, 1);
        assertFalse(waiter.isDone());
        held.release();
        StagingLease got = waiter.get(10, TimeUnit.SECONDS);
        assertEquals(BOB, got.principal());
        assertEquals(held.region().address(), got.region().address());
        assertEquals(1, p.stats().waits());
        assertEquals(0, p.stats().timeouts());
        got.release();
    }

    @Test
    void queuedBorrowsGetTotalBytesFirstComeFirstServed() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.maxBufferSize = 16 * 1024;
        b.maxTotalBytes = 16 * 1024;
        b.maxBytesPerPrincipal = 16 * 1024;
        BufferPool p = pool(b);
        StagingLease small = p.borrow(4096, ALICE, "small-held");
        List<String> order = new CopyOnWriteArrayList<>();
        CompletableFuture<StagingLease> large = CompletableFuture.supplyAsync(() -> borrowAndNote(p, 16 * 1024, BOB, "large", order), threads);
        awaitQueued(p, 1);
        // 4 KiB would fit next to the held 4 KiB, but the large borrow came first
        CompletableFuture<StagingLease> later = CompletableFuture.supplyAsync(
                () -> borrowAndNote(p, 4096, PrincipalId.fromCanonical("carol"), "later", order), threads);
        awaitQueued(p, 2);
        assertFalse(later.isDone(), "a later borrow must not overtake a queued one for total bytes");
        small.release();
        StagingLease l = large.get(10, TimeUnit.SECONDS);
        assertEquals(List.of("large"), order);
        l.release();
        later.get(10, TimeUnit.SECONDS).release();
        assertEquals(List.of("large", "later"), order);
    }

    @Test
    void aBorrowWaitingForItsOwnPrincipalDoesNotHoldUpOthers() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.maxBufferSize = 4096;
        b.maxBytesPerPrincipal = 4096;
        b.maxTotalBytes = 64 * 1024;
        BufferPool p = pool(b);
        StagingLease alices = p.borrow(4096, ALICE, "alice-1");
        CompletableFuture<StagingLease> aliceAgain = CompletableFuture.supplyAsync(() -> {
            try {
                return p.borrow(4096, ALICE, "alice-2", Duration.ofSeconds(10));
            } catch (StagingException e) {
                throw new AssertionError(e);
            }
        }, threads);
        awaitQueued(p, 1);
        StagingLease bobs = p.borrow(4096, BOB, "bob", Duration.ZERO);
        alices.release();
        aliceAgain.get(10, TimeUnit.SECONDS).release();
        bobs.release();
        assertEquals(1, p.stats().waits(), "only Alice's second borrow waited");
    }

    private static StagingLease borrowAndNote(BufferPool p, long size, PrincipalId who, String name, List<String> order) {
        try {
            StagingLease l = p.borrow(size, who, name, Duration.ofSeconds(10));
            order.add(name);
            return l;
        } catch (StagingException e) {
            throw new AssertionError(e);
        }
    }

    static void awaitQueued(BufferPool p, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (p.ledger().queuedCharges() < n) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("expected " + n + " queued borrows, have " + p.ledger().queuedCharges());
            }
            Thread.sleep(2);
        }
    }

    // ------------------------------------------------------------ consume-once

    @Test
    void aSecondReturnIsReportedAndChangesNothing() throws Exception {
        BufferPool p = pool();
        StagingLease lease = p.borrow(4096, ALICE, "session-7");
        StagingLease other = p.borrow(4096, BOB, "session-8");
        assertTrue(lease.release());
        StagingStats before = p.stats();
        long lentBefore = p.ledger().bytesLent();

        assertFalse(lease.release());
        lease.close(); // try-with-resources after an explicit release: a third return

        assertEquals(2, p.stats().doubleReturns());
        assertEquals(2, telemetry.value(Counter.STAGING_DOUBLE_RETURNS));
        assertEquals(1, telemetry.value(Counter.STAGING_RETURNS));
        assertEquals(2, reports.doubleReturns.size());
        assertEquals("session-7", reports.doubleReturns.get(0).holderHint());
        assertEquals(lentBefore, p.ledger().bytesLent());
        StagingStats after = p.stats();
        assertEquals(before.idle(), after.idle(), "the buffer was not pooled twice");
        assertEquals(before.borrowed(), after.borrowed());
        assertEquals(0, transport.deregistered());
        // the idle buffer goes to exactly one new borrower
        StagingLease next = p.borrow(4096, ALICE, "n1");
        StagingLease next2 = p.borrow(4096, ALICE, "n2");
        assertNotSame(next.region(), next2.region());
        assertEquals(3, transport.registered());
        for (StagingLease l : List.of(next, next2, other)) {
            l.release();
        }
    }

    @Test
    void tryWithResourcesReleasesOnce() throws Exception {
        BufferPool p = pool();
        try (StagingLease lease = p.borrow(4096, ALICE, "twr")) {
            assertTrue(lease.isActive());
        }
        assertEquals(0, p.stats().borrowed());
        assertEquals(0, p.stats().doubleReturns());
    }

    // ------------------------------------------------------------ overdue leases

    @Test
    void aLeaseHeldPastTheDeadlineIsReportedOnceWithItsHolder() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.leaseDeadline = Duration.ofSeconds(10);
        BufferPool p = pool(b);
        StagingLease slow = p.borrow(4096, ALICE, "session-42");
        clock.advance(Duration.ofSeconds(5));
        StagingLease fresh = p.borrow(4096, BOB, "session-43");
        assertEquals(0, p.checkOverdueLeases());
        clock.advance(Duration.ofSeconds(6));
        assertEquals(1, p.checkOverdueLeases());
        assertEquals(1, reports.overdue.size());
        assertEquals("session-42", reports.overdue.get(0).holderHint());
        assertNull(reports.overdue.get(0).borrowSite(), "no stack unless lease.trackStacks");
        assertEquals(0, p.checkOverdueLeases(), "reported once per lease");
        assertTrue(slow.isActive(), "reported, not revoked");
        clock.advance(Duration.ofSeconds(5));
        assertEquals(1, p.checkOverdueLeases());
        assertEquals("session-43", reports.overdue.get(1).holderHint());
        slow.release();
        fresh.release();
        clock.advance(Duration.ofHours(1));
        assertEquals(0, p.checkOverdueLeases());
        assertEquals(2, p.stats().overdueLeases());
        assertEquals(2, telemetry.value(Counter.STAGING_OVERDUE_LEASES));
    }

    @Test
    void withStackTrackingTheReportSaysWhereTheLeaseWasBorrowed() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.leaseDeadline = Duration.ofSeconds(1);
        b.trackStacks = true;
        BufferPool p = pool(b);
        StagingLease lease = p.borrow(4096, ALICE, "leaky-session");
        clock.advance(Duration.ofSeconds(2));
        assertEquals(1, p.checkOverdueLeases());
        Throwable site = reports.overdue.get(0).borrowSite();
        assertNotNull(site);
        assertTrue(site.getMessage().contains("leaky-session"));
        boolean thisTest = false;
        for (StackTraceElement e : site.getStackTrace()) {
            thisTest |= e.getMethodName().equals("withStackTrackingTheReportSaysWhereTheLeaseWasBorrowed");
        }
        assertTrue(thisTest, "the recorded stack names the borrowing method");
        lease.release();
    }

    @Test
    void theScheduledCheckReportsWithoutBeingAsked() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.leaseDeadline = Duration.ofMillis(1);
        b.leaseCheckPeriod = Duration.ofMillis(10);
        BufferPool p = pool(b);
        StagingLease lease = p.borrow(4096, ALICE, "scheduled");
        clock.advance(Duration.ofSeconds(1));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (reports.overdue.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(1, reports.overdue.size());
        assertEquals("scheduled", reports.overdue.get(0).holderHint());
        lease.release();
    }

    // ------------------------------------------------------------ transport

    @Test
    void aBetterTransportChangesOnlyThePreferenceAndTheOldOnesRemovalRetiresItsBuffers() throws Exception {
        BufferPool p = pool();
        StagingLease lent = p.borrow(4096, ALICE, "lent");
        p.borrow(8192, ALICE, "idle").release();
        assertEquals(2, transport.registered());
        FakeRegion lentRegion = (FakeRegion) lent.region();

        FakeTransport second = TestSupport.recordingTransport("rec-2");
        p.useTransport(second);
        assertSame(second, p.transport());
        assertEquals(0, transport.deregistered(), "the old transport is still there: its buffers stay valid");
        assertEquals(2, p.boundTransports());
        StagingLease onOld = p.borrow(8192, BOB, "on old", Duration.ZERO, transport);
        assertEquals("rec-1", onOld.region().transportName());
        assertEquals(2, transport.registered(), "the idle one was lent again");
        onOld.release();

        StagingLease fresh = p.borrow(4096, BOB, "fresh");
        assertEquals("rec-2", fresh.region().transportName());
        assertEquals(1, second.registered());

        // only its removal retires the old transport: idle buffers at once, lent ones when they come back
        p.transportGone(transport);
        assertEquals(1, transport.deregistered(), "the idle buffer of the old transport is released at once");
        assertTrue(lentRegion.isOpen(), "a lent buffer keeps its registration while lent");
        assertTrue(lent.segment().scope().isAlive());
        refused(StagingStatus.NO_TRANSPORT, () -> p.borrow(4096, BOB, "gone", Duration.ZERO, transport));
        assertEquals(1, p.boundTransports());

        lent.release();
        assertEquals(2, transport.deregistered());
        assertTrue(lentRegion.memoryAliveAtClose, "deregistered before the memory was freed");
        assertFalse(lent.segment().scope().isAlive(), "and then freed");
        assertTrue(transport.closedTwice().isEmpty());
        assertEquals(0, transport.regionCount());
        fresh.release();
        assertEquals(1, second.regionCount(), "the new transport's buffer stays idle and registered");
    }

    @Test
    void withoutATransportBorrowsFailWithNoTransport() throws Exception {
        BufferPool p = pool();
        p.borrow(4096, ALICE, "before").release();
        p.transportGone(transport);
        assertNull(p.transport());
        assertEquals(1, transport.deregistered());
        refused(StagingStatus.NO_TRANSPORT, () -> p.borrow(4096, ALICE, "during"));
        refused(StagingStatus.NO_TRANSPORT, () -> p.borrow(4096, ALICE, "named", Duration.ZERO, transport));
        assertEquals(2, p.stats().failures());
        assertEquals(0, p.ledger().bytesLent());
        FakeTransport next = TestSupport.recordingTransport("rec-next");
        p.useTransport(next);
        p.borrow(4096, ALICE, "after").release();
        assertEquals(1, next.registered());
    }

    @Test
    void aBorrowNamingATransportThePoolWasNotToldOfYetRegistersThere() throws Exception {
        BufferPool p = pool();
        FakeTransport early = TestSupport.recordingTransport("early");
        StagingLease l = p.borrow(4096, ALICE, "session on early", Duration.ZERO, early);
        assertEquals("early", l.region().transportName());
        assertSame(transport, p.transport(), "the preference did not move");
        l.release();
        p.transportGone(early);
        assertEquals(0, early.regionCount());
    }

    @Test
    void aRefusedRegistrationFailsTheBorrowAndChargesNothing() throws Exception {
        BufferPool p = pool();
        transport.refuseNext.set(1);
        StagingException e = refused(StagingStatus.REGISTRATION_FAILED, () -> p.borrow(4096, ALICE, "s"));
        assertTrue(e.getMessage().contains("RESOURCE_EXHAUSTED"), e.getMessage());
        assertEquals(0, p.ledger().bytesLent());
        assertEquals(0, p.ledger().buffersLent());
        assertEquals(0, p.liveBufferCount());
        assertEquals(1, p.stats().failures());
        p.borrow(4096, ALICE, "s").release();
        assertEquals(1, transport.registered());
    }

    @Test
    void aBufferWhoseRegionTheTransportClosedIsNotLentAgain() throws Exception {
        BufferPool p = pool();
        StagingLease l = p.borrow(4096, ALICE, "x");
        l.release();
        // the transport closes what is left when it shuts down
        transport.regions().get(0).close();
        StagingLease again = p.borrow(4096, ALICE, "y");
        assertTrue(again.region().isOpen());
        assertEquals(2, transport.registered());
        again.release();
        assertEquals(1, transport.regions().get(0).closeCalls(), "the pool did not close it a second time");
    }

    // ------------------------------------------------------------ shutdown

    @Test
    void shutdownWithLeasesOutIsBoundedReportsThemAndKeepsTheirMemory() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.shutdownTimeout = Duration.ofMillis(300);
        BufferPool p = pool(b);
        StagingLease out1 = p.borrow(4096, ALICE, "session-out-1");
        StagingLease out2 = p.borrow(16384, BOB, "session-out-2");
        p.borrow(8192, ALICE, "returned").release();
        FakeRegion idleRegion = transport.regions().get(2);

        long start = System.nanoTime();
        assertEquals(2, p.shutdown());
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMs >= 300 && tookMs < 10_000, "waited the shutdown timeout, bounded: " + tookMs + " ms");

        assertEquals(List.of("session-out-1", "session-out-2"),
                reports.unreturned.stream().map(PooledLease::holderHint).sorted().toList());
        assertFalse(idleRegion.isOpen(), "idle buffers are released");
        assertTrue(out1.region().isOpen() && out2.region().isOpen(), "lent buffers keep their registration");
        assertTrue(out1.segment().scope().isAlive(), "and their memory");
        out1.segment().set(ValueLayout.JAVA_INT, 0, 7); // still safe to touch

        refused(StagingStatus.CLOSED, () -> p.borrow(4096, ALICE, "late"));

        assertTrue(out1.release(), "a late return is accepted");
        assertFalse(out1.region().isOpen());
        assertFalse(out1.segment().scope().isAlive(), "and frees the buffer");
        out2.release();
        assertEquals(0, transport.regionCount());
        assertTrue(transport.closedTwice().isEmpty());
        assertEquals(0, p.liveBufferCount());
        assertEquals(0, p.ledger().bytesLent());
        assertEquals(0, p.shutdown(), "shutdown is idempotent");
    }

    @Test
    void shutdownWaitsForALeaseThatComesBackInTime() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.shutdownTimeout = Duration.ofSeconds(10);
        BufferPool p = pool(b);
        StagingLease out = p.borrow(4096, ALICE, "coming-back");
        CompletableFuture.runAsync(() -> {
            sleep(100);
            out.release();
        }, threads);
        assertEquals(0, p.shutdown());
        assertTrue(reports.unreturned.isEmpty());
        assertEquals(0, transport.regionCount());
        assertTrue(transport.closedTwice().isEmpty());
    }

    @Test
    void shutdownFailsQueuedBorrowsWithClosed() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.maxBufferSize = 4096;
        b.maxTotalBytes = 4096;
        b.maxBytesPerPrincipal = 4096;
        b.shutdownTimeout = Duration.ofMillis(50);
        BufferPool p = pool(b);
        StagingLease held = p.borrow(4096, ALICE, "held");
        CompletableFuture<StagingStatus> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                p.borrow(4096, BOB, "queued", Duration.ofSeconds(30)).release();
                return null;
            } catch (StagingException e) {
                return e.status();
            }
        }, threads);
        awaitQueued(p, 1);
        p.shutdown();
        assertEquals(StagingStatus.CLOSED, waiter.get(5, TimeUnit.SECONDS));
        held.release();
        assertEquals(0, transport.regionCount());
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
