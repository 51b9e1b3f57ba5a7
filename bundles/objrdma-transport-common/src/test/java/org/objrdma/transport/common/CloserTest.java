package org.objrdma.transport.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CloserTest {

    private final List<String> closed = new ArrayList<>();

    private AutoCloseable ok(String name) {
        return () -> closed.add(name);
    }

    private AutoCloseable failing(String name, Exception e) {
        return () -> {
            closed.add(name);
            throw e;
        };
    }

    @Test
    void closesInTheOrderGiven() {
        Closer.closeAll(ok("a"), ok("b"), ok("c"));
        assertEquals(List.of("a", "b", "c"), closed);
    }

    @Test
    void aThrowingCloseDoesNotStopTheRestAndEveryFailureIsReported() {
        IllegalStateException first = new IllegalStateException("first");
        IllegalArgumentException second = new IllegalArgumentException("second");
        RuntimeException thrown = assertThrows(RuntimeException.class,
                () -> Closer.closeAll(ok("a"), failing("b", first), ok("c"), failing("d", second), ok("e")));
        assertSame(first, thrown);
        assertEquals(List.of(second), List.of(thrown.getSuppressed()));
        assertEquals(List.of("a", "b", "c", "d", "e"), closed);
    }

    @Test
    void aCheckedFailureIsWrappedAndKeepsTheLaterOnesSuppressed() {
        IOException io = new IOException("disk");
        RuntimeException later = new RuntimeException("later");
        CloseFailedException e = assertThrows(CloseFailedException.class,
                () -> Closer.closeAll(failing("a", io), failing("b", later)));
        assertSame(io, e.getCause());
        assertEquals(List.of(later), List.of(io.getSuppressed()));
    }

    @Test
    void errorsPassThroughAsTheyAre() {
        Error oom = new OutOfMemoryError("test");
        AutoCloseable throwsError = () -> {
            throw oom;
        };
        assertSame(oom, assertThrows(OutOfMemoryError.class, () -> Closer.closeAll(throwsError, ok("b"))));
        assertEquals(List.of("b"), closed);
    }

    @Test
    void nullsAreSkippedAndARepeatedResourceClosesOnce() {
        AutoCloseable a = ok("a");
        Closer.closeAll(null, a, null, a, ok("b"));
        Closer.closeAll((AutoCloseable[]) null);
        Closer.closeAll((Iterable<AutoCloseable>) null);
        assertEquals(List.of("a", "b"), closed);
    }

    /** An array of a narrower type (MemoryRegion[] with the slots a failed registration left null) is fine. */
    @Test
    void aNarrowerArrayWithNullsIsClosedWhole() {
        NamedResource[] regions = {new NamedResource("r0", closed), null, new NamedResource("r2", closed), null};
        Closer.closeAll(regions);
        Closer.closeAllQuietly(t -> closed.add("failure " + t), regions);
        assertEquals(List.of("r0", "r2", "r0", "r2"), closed);
    }

    private record NamedResource(String name, List<String> log) implements AutoCloseable {
        @Override
        public void close() {
            log.add(name);
        }
    }

    @Test
    void anInterruptIsReportedAndTheFlagSetAgainAfterTheRestClosed() {
        InterruptedException ie = new InterruptedException("stop");
        try {
            CloseFailedException e = assertThrows(CloseFailedException.class,
                    () -> Closer.closeAll(failing("a", ie), ok("b")));
            assertSame(ie, e.getCause());
            assertEquals(List.of("a", "b"), closed);
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void quietlyHandsTheFirstFailureWithTheRestToTheConsumerOnce() {
        AtomicReference<Throwable> seen = new AtomicReference<>();
        List<Throwable> calls = new ArrayList<>();
        RuntimeException first = new RuntimeException("first");
        IOException second = new IOException("second");
        Closer.closeAllQuietly(t -> {
            calls.add(t);
            seen.set(t);
        }, failing("a", first), ok("b"), failing("c", second));
        assertEquals(1, calls.size());
        assertSame(first, seen.get());
        assertEquals(List.of(second), List.of(first.getSuppressed()));
        assertEquals(List.of("a", "b", "c"), closed);

        calls.clear();
        Closer.closeAllQuietly(calls::add, ok("d"));
        assertTrue(calls.isEmpty());
    }

    @Test
    void groupsCloseInTheirOrderOrReversedAsOneEntry() {
        List<AutoCloseable> opened = List.of(ok("1"), ok("2"), ok("3"));
        Closer.closeAll(Closer.reversed(opened), ok("mid"), Closer.all(opened.subList(0, 2)));
        assertEquals(List.of("3", "2", "1", "mid", "1", "2"), closed);
    }

    @Test
    void aFailureInsideAGroupStopsNeitherTheGroupNorWhatFollows() {
        RuntimeException inGroup = new RuntimeException("in group");
        RuntimeException after = new RuntimeException("after");
        List<AutoCloseable> group = List.of(ok("g1"), failing("g2", inGroup), ok("g3"));
        RuntimeException thrown = assertThrows(RuntimeException.class,
                () -> Closer.closeAll(Closer.all(group), failing("x", after), ok("y")));
        assertSame(inGroup, thrown);
        assertEquals(List.of(after), List.of(inGroup.getSuppressed()));
        assertEquals(List.of("g1", "g2", "g3", "x", "y"), closed);
    }

    @Test
    void theGroupIsReadWhenItCloses() {
        List<AutoCloseable> later = new ArrayList<>();
        AutoCloseable group = Closer.all(later);
        later.add(ok("added after"));
        Closer.closeAll(group);
        assertEquals(List.of("added after"), closed);
    }

    @Test
    void nothingToReportIsNothingThrown() {
        Closer.closeAll();
        Closer.closeAll(List.of());
        assertFalse(Thread.currentThread().isInterrupted());
    }
}
