package org.objrdma.staging.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.staging.StagingStats;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.testsupport.CountingTelemetry;
import org.objrdma.testsupport.FakeClock;
import org.objrdma.staging.internal.TestSupport.RecordingReports;
import org.objrdma.staging.internal.TestSupport.SettingsBuilder;
import org.objrdma.testsupport.FakeTransport;

/**
 * Many threads against one pool: at the end every counter must add up exactly, and a transport swap under
 * load must release every old registration exactly once.
 */
class BufferPoolConcurrencyTest {

    /** Borrow/return pairs per thread; the issue asks for a million. Lower it with -Dobjrdma.staging.stress.iterations. */
    private static final int ITERATIONS = Integer.getInteger("objrdma.staging.stress.iterations", 1_000_000);
    private static final int THREADS = 16;
    private static final int PER_CLASS = 15;
    private static final long[] SIZES = {4096, 6000, 8192, 20_000, 32_768, 100, 12_000, 4097};

    @Test
    void sixteenThreadsMillionBorrowsEachAddUpExactly() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.maxBufferSize = 32 * 1024;
        // tight enough that threads queue for total bytes, per principal and per class now and then (a few
        // in a thousand: every wait parks a thread, and on two cores many waits make this test slow)
        b.maxTotalBytes = 416 * 1024;
        b.maxBytesPerPrincipal = 112 * 1024;
        b.maxBuffersPerClass = PER_CLASS;
        b.idlePerClass = PER_CLASS;
        b.borrowWait = Duration.ofSeconds(60);
        b.scrubOnReturn = false; // this test is about accounting; zeroing is tested on its own
        FakeTransport transport = TestSupport.recordingTransport("stress");
        CountingTelemetry telemetry = new CountingTelemetry();
        BufferPool pool = new BufferPool(b.build(), transport, () -> telemetry, new FakeClock(), new RecordingReports());
        PrincipalId[] principals = new PrincipalId[4];
        for (int i = 0; i < principals.length; i++) {
            principals[i] = PrincipalId.fromCanonical("principal-" + i);
        }
        Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
        LongAdder done = new LongAdder();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int id = t;
            workers.add(Thread.ofPlatform().name("stress-" + t).start(() -> {
                try {
                    start.await();
                    PrincipalId who = principals[id % principals.length];
                    for (int i = 0; i < ITERATIONS; i++) {
                        long size = SIZES[(i + id) & 7];
                        StagingLease lease = pool.borrow(size, who, "stress-" + id);
                        lease.segment().set(ValueLayout.JAVA_LONG, 0, i);
                        if (!lease.region().isOpen() || lease.segment().byteSize() != size) {
                            throw new AssertionError("lent a closed or wrong-sized buffer");
                        }
                        if (!lease.release()) {
                            throw new AssertionError("first release refused");
                        }
                        done.increment();
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }));
        }
        long began = System.nanoTime();
        start.countDown();
        for (Thread w : workers) {
            w.join();
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began);
        System.out.printf("stress: %d threads x %d borrow/return in %d s%n", THREADS, ITERATIONS, seconds);
        assertTrue(errors.isEmpty(), () -> "worker failed: " + errors.peek());

        long total = (long) THREADS * ITERATIONS;
        StagingStats s = pool.stats();
        assertEquals(total, done.sum());
        assertEquals(total, s.borrows());
        assertEquals(total, pool.returnedCount());
        assertEquals(total, telemetry.value(Counter.STAGING_BORROWS));
        assertEquals(total, telemetry.value(Counter.STAGING_RETURNS));
        assertEquals(0, s.borrowed());
        assertEquals(0, s.bytesBorrowed());
        assertEquals(0, s.timeouts());
        assertEquals(0, s.failures());
        assertEquals(0, s.doubleReturns());
        assertEquals(s.waits(), telemetry.value(Counter.STAGING_WAITS));
        assertTrue(s.waits() > 0, "the limits were reached now and then, so the waiting path ran too");
        System.out.printf("stress: %d borrows waited for a limit%n", s.waits());
        LimitLedger ledger = pool.ledger();
        assertEquals(0, ledger.bytesLent());
        assertEquals(0, ledger.buffersLent());
        assertEquals(0, ledger.principalsCharged());
        assertEquals(0, ledger.queuedCharges());
        // every buffer made is either idle now or was destroyed, and registrations match one to one
        assertEquals(s.idle(), pool.createdCount() - pool.destroyedCount());
        assertEquals(s.idle(), pool.liveBufferCount());
        assertEquals(pool.createdCount(), transport.registered());
        assertEquals(pool.destroyedCount(), transport.deregistered());
        assertEquals(s.idle(), transport.regionCount());
        assertTrue(transport.closedTwice().isEmpty());
        for (StagingStats.SizeClass c : s.classes()) {
            assertTrue(c.idle() <= PER_CLASS, "idle per class bounded: " + c);
        }

        assertEquals(0, pool.shutdown());
        assertEquals(0, transport.regionCount());
        assertEquals(transport.registered(), transport.deregistered());
        assertTrue(transport.closedTwice().isEmpty());
    }

    @Test
    void transportSwapsUnderLoadReleaseEveryOldRegistrationExactlyOnce() throws Exception {
        SettingsBuilder b = new SettingsBuilder();
        b.maxBufferSize = 16 * 1024;
        b.idlePerClass = 8;
        b.borrowWait = Duration.ofSeconds(30);
        List<FakeTransport> transports = new ArrayList<>();
        transports.add(TestSupport.recordingTransport("swap-0"));
        BufferPool pool = new BufferPool(b.build(), transports.get(0), CountingTelemetry::new, new FakeClock(),
                new RecordingReports());
        AtomicBoolean stop = new AtomicBoolean();
        Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
        LongAdder borrows = new LongAdder();
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            int id = t;
            workers.add(Thread.ofPlatform().name("swap-worker-" + t).start(() -> {
                try {
                    PrincipalId who = PrincipalId.fromCanonical("w" + (id % 3));
                    int i = 0;
                    while (!stop.get()) {
                        StagingLease lease = pool.borrow(SIZES[(i++ + id) & 7] % (16 * 1024) + 1, who, "w" + id);
                        // a lent buffer's registration stays open for as long as the lease, whatever swaps happen
                        for (int k = 0; k < 3; k++) {
                            if (!lease.region().isOpen()) {
                                throw new AssertionError("a lent buffer lost its registration");
                            }
                            lease.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) k);
                            Thread.yield();
                        }
                        lease.release();
                        borrows.increment();
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }));
        }
        for (int swap = 1; swap <= 40; swap++) {
            Thread.sleep(5);
            FakeTransport next = TestSupport.recordingTransport("swap-" + swap);
            FakeTransport previous = transports.get(transports.size() - 1);
            transports.add(next);
            pool.useTransport(next);
            pool.transportGone(previous); // the old transport's service goes: only now are its buffers retired
        }
        Thread.sleep(20);
        stop.set(true);
        for (Thread w : workers) {
            w.join();
        }
        assertTrue(errors.isEmpty(), () -> "worker failed: " + errors.peek());
        assertTrue(borrows.sum() > 0);

        FakeTransport current = transports.get(transports.size() - 1);
        int oldRegistrations = 0;
        for (FakeTransport old : transports.subList(0, transports.size() - 1)) {
            assertEquals(old.registered(), old.deregistered(), old.name() + ": every old registration released");
            assertTrue(old.closedTwice().isEmpty(), old.name() + ": none released twice");
            oldRegistrations += old.registered();
        }
        StagingStats s = pool.stats();
        assertEquals(0, s.borrowed());
        assertEquals(s.idle(), current.regionCount(), "what is left is idle and registered with the current transport");
        System.out.printf("swap: %d borrows, %d registrations with %d old transports released%n",
                borrows.sum(), oldRegistrations, transports.size() - 1);

        StagingLease after = pool.borrow(1, PrincipalId.fromCanonical("after"), "after");
        assertEquals(current.name(), after.region().transportName());
        after.release();
        pool.shutdown();
        for (FakeTransport t : transports) {
            assertEquals(0, t.regionCount(), t.name());
            assertTrue(t.closedTwice().isEmpty(), t.name());
        }
    }
}
