package org.objrdma.api.session;

import static org.junit.jupiter.api.Assertions.*;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SessionValuesTest {

    @Test
    void statusNumbersMatchTheCAbi() {
        String[] abiOrder = {"OK", "ARG", "STATE", "SESSION", "STALE", "NO_SESSION", "DOUBLE", "WIRE", "SHORT",
            "TRUNC", "LIMIT", "INTERNAL"};
        for (int i = 0; i < abiOrder.length; i++) {
            assertEquals(abiOrder[i], RcStatus.fromCode(i).name());
            assertEquals(i, RcStatus.valueOf(abiOrder[i]).code());
        }
        assertSame(RcStatus.INTERNAL, RcStatus.fromCode(42));
        assertEquals(4, ReadyOutcome.WIRE_FAIL.code());
        assertEquals(1, Op.PUT.code());
        assertEquals(0x80, SessionState.REAP_PENDING_MARKER);
    }

    @Test
    void sessionIdParsingNeverThrows() {
        assertTrue(SessionId.parse("0123456789abcdef0123456789abcdef").isPresent());
        assertTrue(SessionId.parse("0123456789ABCDEF0123456789abcdef").isEmpty(), "upper case refused");
        assertTrue(SessionId.parse("0123456789abcdef0123456789abcde").isEmpty());
        assertTrue(SessionId.parse(null).isEmpty());
        assertTrue(SessionId.parse("").isEmpty());
        Random r = new Random(42);
        for (int i = 0; i < 10_000; i++) {
            char[] c = new char[r.nextInt(40)];
            for (int j = 0; j < c.length; j++) {
                c[j] = (char) r.nextInt(128);
            }
            String s = new String(c);
            boolean wellFormed = s.matches("[0-9a-f]{32}");
            assertEquals(wellFormed, SessionId.parse(s).isPresent(), s);
        }
        assertThrows(IllegalArgumentException.class, () -> new SessionId("xyz"));
    }

    @Test
    void resultHasAValueWhenOkAndAFailureMayDescribeItself() {
        assertEquals("v", SessionResult.ok("v").orElseThrow());
        SessionResult<String> f = SessionResult.failed(RcStatus.LIMIT);
        assertFalse(f.isOk());
        IllegalStateException e = assertThrows(IllegalStateException.class, f::orElseThrow);
        assertTrue(e.getMessage().contains("LIMIT"));
        assertEquals(RcStatus.LIMIT, f.map(String::length).status());
        assertEquals(1, SessionResult.ok("v").map(String::length).value());
        assertThrows(IllegalArgumentException.class, () -> SessionResult.failed(RcStatus.OK));
        assertThrows(IllegalArgumentException.class, () -> new SessionResult<>(RcStatus.OK, null));
        assertTrue(f.failureDetail().isEmpty());
        SessionResult<String> described = SessionResult.failed(RcStatus.WIRE, "timeout");
        assertFalse(described.isOk());
        assertEquals(java.util.Optional.of("timeout"), described.failureDetail());
        assertThrows(IllegalStateException.class, described::orElseThrow);
        assertTrue(SessionResult.ok("v").failureDetail().isEmpty());
        assertThrows(IllegalArgumentException.class, () -> SessionResult.failed(RcStatus.OK, "x"));
        assertEquals(12, RcStatus.SHUTDOWN.code());
        assertEquals(RcStatus.SHUTDOWN, RcStatus.fromCode(12));
    }

    @Test
    void leaseHandleValidityAndSnapshotCode() {
        assertFalse(LeaseHandle.NONE.isValid());
        assertTrue(new LeaseHandle(1, 1).isValid());
        SessionSnapshot s = new SessionSnapshot(new SessionId("0123456789abcdef0123456789abcdef"), Op.GET, "/b/k",
                SessionState.COMPLETING, true, Duration.ofMillis(5), 10);
        assertEquals(0x83, s.stateCode());
    }
}
