package org.objrdma.transport.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Opcode;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WorkRequest;

/**
 * The shared checks on their own; the transports' suites (TcpTransportTest, VerbsTransportTest and the
 * transport TCK) check that each transport applies them.
 */
class TransportChecksTest {

    /** A region as a transport hands it out: only what the checks read. */
    private record Region(MemorySegment segment, Set<Access> access, String transportName) implements MemoryRegion {
        @Override
        public long address() {
            return segment.address();
        }

        @Override
        public long length() {
            return segment.byteSize();
        }

        @Override
        public int lkey() {
            return 2;
        }

        @Override
        public int rkey() {
            return 2;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    private final Arena arena = Arena.ofAuto();
    private final Region ours = new Region(arena.allocate(4096), EnumSet.of(Access.LOCAL_WRITE), "t1");
    private final Region readOnly = new Region(arena.allocate(4096), EnumSet.noneOf(Access.class), "t1");
    private final Region foreign = new Region(arena.allocate(4096), EnumSet.of(Access.LOCAL_WRITE), "t2");
    private final Predicate<MemoryRegion> isOurs = r -> r instanceof Region x && x.transportName().equals("t1");

    private static void refused(TransportError error, String message, Executable check) {
        TransportException e = assertThrows(TransportException.class, check);
        assertEquals(error, e.error());
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void submitArguments() throws Exception {
        WorkRequest w = WorkRequest.send(1, new ScatterGatherEntry(ours, 0, 8));
        refused(TransportError.INVALID_ARGUMENT, "requests and timeout are required",
                () -> TransportChecks.checkSubmit(null, Duration.ofSeconds(1)));
        refused(TransportError.INVALID_ARGUMENT, "requests and timeout are required",
                () -> TransportChecks.checkSubmit(List.of(w), null));
        refused(TransportError.INVALID_ARGUMENT, "timeout must be positive, was PT0S",
                () -> TransportChecks.checkSubmit(List.of(w), Duration.ZERO));
        refused(TransportError.INVALID_ARGUMENT, "timeout must be positive, was PT-1S",
                () -> TransportChecks.checkSubmit(List.of(w), Duration.ofSeconds(-1)));
        refused(TransportError.INVALID_ARGUMENT, "request 1 of the batch is null",
                () -> TransportChecks.checkSubmit(java.util.Arrays.asList(w, null), Duration.ofSeconds(1)));
        TransportChecks.checkSubmit(List.of(w), Duration.ofNanos(1));
        TransportChecks.checkSubmit(List.of(), Duration.ofNanos(1));
    }

    @Test
    void requestShape() throws Exception {
        var e = new ScatterGatherEntry(ours, 0, 8);
        WorkRequest three = new WorkRequest(5, Opcode.SEND, List.of(e, e, e), 0, 0, 0, true);
        refused(TransportError.INVALID_ARGUMENT, "request is null",
                () -> TransportChecks.checkRequest(null, 4, isOurs, "t1"));
        refused(TransportError.INVALID_ARGUMENT, "request 5 (SEND) has 3 scatter-gather entries; the channel allows 2",
                () -> TransportChecks.checkRequest(three, 2, isOurs, "t1"));
        WorkRequest mixed = new WorkRequest(6, Opcode.SEND, List.of(e, new ScatterGatherEntry(foreign, 0, 8)), 0, 0, 0,
                true);
        refused(TransportError.INVALID_ARGUMENT, "which is not registered with t1",
                () -> TransportChecks.checkRequest(mixed, 4, isOurs, "t1"));
        TransportChecks.checkRequest(three, 3, isOurs, "t1");
    }

    @Test
    void postableByState() throws Exception {
        refused(TransportError.CLOSED, "channel 9 is closed",
                () -> TransportChecks.checkPostable(ChannelState.CLOSED, 9, Opcode.RECV));
        refused(TransportError.WRONG_STATE,
                "channel 9 is not connected: WRITE needs CONNECTED (only RECV may be posted before connect)",
                () -> TransportChecks.checkPostable(ChannelState.INIT, 9, Opcode.WRITE));
        TransportChecks.checkPostable(ChannelState.INIT, 9, Opcode.RECV);
        TransportChecks.checkPostable(ChannelState.ERROR, 9, Opcode.WRITE); // flushed, not refused
        TransportChecks.checkPostable(ChannelState.CONNECTED, 9, Opcode.READ);
    }

    @Test
    void grantArguments() throws Exception {
        Set<Access> rw = EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE);
        refused(TransportError.INVALID_ARGUMENT, "region and access are required",
                () -> TransportChecks.checkGrant(null, 0, 1, rw, isOurs, "t1"));
        refused(TransportError.INVALID_ARGUMENT, "region and access are required",
                () -> TransportChecks.checkGrant(ours, 0, 1, null, isOurs, "t1"));
        refused(TransportError.INVALID_ARGUMENT, "is not registered with t1",
                () -> TransportChecks.checkGrant(foreign, 0, 1, rw, isOurs, "t1"));
        refused(TransportError.INVALID_ARGUMENT, "a grant allows REMOTE_READ and/or REMOTE_WRITE, nothing else; got []",
                () -> TransportChecks.checkGrant(ours, 0, 1, Set.of(), isOurs, "t1"));
        refused(TransportError.INVALID_ARGUMENT, "nothing else; got [LOCAL_WRITE]",
                () -> TransportChecks.checkGrant(ours, 0, 1, EnumSet.of(Access.LOCAL_WRITE), isOurs, "t1"));
        refused(TransportError.INVALID_ARGUMENT, "REMOTE_WRITE needs a region registered with LOCAL_WRITE",
                () -> TransportChecks.checkGrant(readOnly, 0, 1, rw, isOurs, "t1"));
        refused(TransportError.INVALID_ARGUMENT, "slice [0, +0) is empty or outside the region's 4096 bytes",
                () -> TransportChecks.checkGrant(ours, 0, 0, rw, isOurs, "t1"));
        refused(TransportError.INVALID_ARGUMENT, "slice [4000, +97) is empty",
                () -> TransportChecks.checkGrant(ours, 4000, 97, rw, isOurs, "t1"));
        refused(TransportError.INVALID_ARGUMENT, "slice [-1, +1) is empty",
                () -> TransportChecks.checkGrant(ours, -1, 1, rw, isOurs, "t1"));
        refused(TransportError.INVALID_ARGUMENT, "slice [1, +9223372036854775807) is empty",
                () -> TransportChecks.checkGrant(ours, 1, Long.MAX_VALUE, rw, isOurs, "t1"));
        TransportChecks.checkGrant(ours, 4000, 96, rw, isOurs, "t1");
        TransportChecks.checkGrant(readOnly, 0, 4096, EnumSet.of(Access.REMOTE_READ), isOurs, "t1");
    }
}
