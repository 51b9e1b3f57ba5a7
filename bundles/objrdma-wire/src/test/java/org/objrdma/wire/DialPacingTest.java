package org.objrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DialPacingTest {

    @Test
    void aFailureIsAnsweredOnceTheDelayPassedSinceTheDialStarted() {
        DialPacing p = DialPacing.ofMillis(300);
        long start = System.nanoTime();
        p.padFailure(start);
        long took = System.nanoTime() - start;
        assertTrue(took >= Duration.ofMillis(300).toNanos(), took + " ns");

        long earlier = System.nanoTime() - Duration.ofMillis(250).toNanos(); // the dial itself took 250 ms
        long before = System.nanoTime();
        p.padFailure(earlier);
        long waited = System.nanoTime() - before;
        assertTrue(waited < Duration.ofMillis(200).toNanos(), "only the rest of the delay: " + waited + " ns");
        assertTrue(System.nanoTime() - earlier >= Duration.ofMillis(300).toNanos());
    }

    @Test
    void theDialTimeoutIsCutToTheDelay() {
        DialPacing p = DialPacing.ofMillis(2_500);
        assertEquals(Duration.ofMillis(2_500), p.dialTimeout(Duration.ofMillis(2_147)).plusMillis(353));
        assertEquals(Duration.ofMillis(2_147), p.dialTimeout(Duration.ofMillis(2_147)));
        assertEquals(Duration.ofMillis(2_500), p.dialTimeout(Duration.ofSeconds(30)));
    }

    @Test
    void delaysOutsideTheRangeAreRefusedSayingSo() {
        assertNull(DialPacing.problem(100));
        assertNull(DialPacing.problem(60_000));
        for (long bad : new long[] {-1, 0, 99, 60_001}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> DialPacing.ofMillis(bad));
            assertTrue(e.getMessage().contains("100..60000"), e.getMessage());
        }
    }

    @Test
    void anInterruptedPadReturnsAtOnceKeepingTheFlag() {
        Thread.currentThread().interrupt();
        long start = System.nanoTime();
        DialPacing.ofMillis(5_000).padFailure(start);
        assertTrue(Thread.interrupted(), "the flag is set again");
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(2).toNanos());
    }
}
