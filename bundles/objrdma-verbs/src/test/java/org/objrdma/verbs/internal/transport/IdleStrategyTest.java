package org.objrdma.verbs.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class IdleStrategyTest {

    @Test
    void namesParseInAnyCaseAndOthersAreRefusedByName() {
        assertEquals(IdleStrategy.Kind.SPIN, IdleStrategy.Kind.parse(" Spin "));
        assertEquals(IdleStrategy.Kind.BACKOFF, IdleStrategy.Kind.parse("backoff"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IdleStrategy.Kind.parse("sleep"));
        assertEquals("poller.idle must be spin or backoff, was 'sleep'", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> IdleStrategy.Kind.parse(null));
    }

    @Test
    void backoffSpinsThenYieldsThenParksLongerUpToTheLimitAndWorkResetsIt() {
        IdleStrategy idle = new IdleStrategy(IdleStrategy.Kind.BACKOFF, 8_000);
        for (int i = 0; i < IdleStrategy.SPINS + IdleStrategy.YIELDS; i++) {
            idle.idle();
        }
        assertEquals(IdleStrategy.MIN_PARK_NANOS, idle.currentParkNanos(), "no park before spinning and yielding");
        idle.idle();
        assertEquals(2_000, idle.currentParkNanos());
        for (int i = 0; i < 10; i++) {
            idle.idle();
        }
        assertEquals(8_000, idle.currentParkNanos(), "capped at the configured longest park");
        idle.reset();
        assertEquals(IdleStrategy.MIN_PARK_NANOS, idle.currentParkNanos());
    }

    @Test
    void aLongestParkBelowOneMicrosecondIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new IdleStrategy(IdleStrategy.Kind.BACKOFF, 999));
    }
}
