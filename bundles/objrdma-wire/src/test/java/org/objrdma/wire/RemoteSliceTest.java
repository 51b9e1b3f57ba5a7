package org.objrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;

/**
 * When {@link RemoteSlice} falls back to a slice registration and when it refuses. The real grant path runs in the
 * session, client and cuobj tests over the real TCP and verbs transports; here fakes make each refusal happen.
 */
class RemoteSliceTest {
    private final List<Set<Access>> registered = new ArrayList<>();
    private final List<MemorySegment> segments = new ArrayList<>();
    private final boolean[] sliceClosed = new boolean[1];

    private Channel channel(ChannelState state, TransportError refusal) {
        return (Channel) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Channel.class},
                (p, m, a) -> switch (m.getName()) {
                    case "grant" -> throw new TransportException(refusal, "fake refusal");
                    case "state" -> state;
                    case "transportName" -> "fake";
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    private Transport transport() {
        return (Transport) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Transport.class},
                (p, m, a) -> {
                    if (m.getName().equals("register")) {
                        MemorySegment s = (MemorySegment) a[0];
                        @SuppressWarnings("unchecked") Set<Access> access = (Set<Access>) a[1];
                        segments.add(s);
                        registered.add(access);
                        return region(s, access, 77);
                    }
                    throw new UnsupportedOperationException(m.getName());
                });
    }

    private MemoryRegion region(MemorySegment s, Set<Access> access, int rkey) {
        return (MemoryRegion) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {MemoryRegion.class},
                (p, m, a) -> switch (m.getName()) {
                    case "segment" -> s;
                    case "address" -> s.address();
                    case "length" -> s.byteSize();
                    case "rkey" -> rkey;
                    case "access" -> access;
                    case "isOpen" -> !sliceClosed[0];
                    case "close" -> {
                        sliceClosed[0] = true;
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    @Test
    void aChannelThatCannotGrantBeforeConnectGetsARegistrationOfExactlyTheSlice() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memory = arena.allocate(8192, 4096);
            MemoryRegion whole = region(memory, EnumSet.of(Access.LOCAL_WRITE), 5);
            RemoteSlice slice = RemoteSlice.open(transport(), channel(ChannelState.INIT, TransportError.WRONG_STATE),
                    whole, 4096, 100, EnumSet.of(Access.REMOTE_WRITE));
            assertFalse(slice.isChannelBound());
            assertEquals(memory.address() + 4096, segments.get(0).address(), "the slice, not the region");
            assertEquals(100, segments.get(0).byteSize());
            assertEquals(EnumSet.of(Access.REMOTE_WRITE, Access.LOCAL_WRITE), registered.get(0));
            assertEquals(77, slice.rkey());
            assertTrue(slice.isValid());
            slice.close();
            slice.close();
            assertTrue(sliceClosed[0]);
            assertFalse(slice.isValid());
        }
    }

    @Test
    void aChannelInErrorOrARealFailureGetsNoAccessAtAll() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemoryRegion whole = region(arena.allocate(8192, 4096), EnumSet.of(Access.LOCAL_WRITE), 5);
            assertEquals(TransportError.WRONG_STATE, assertThrows(TransportException.class, () -> RemoteSlice.open(
                    transport(), channel(ChannelState.ERROR, TransportError.WRONG_STATE), whole, 0, 100,
                    EnumSet.of(Access.REMOTE_WRITE))).error());
            assertEquals(TransportError.RESOURCE_EXHAUSTED, assertThrows(TransportException.class, () -> RemoteSlice.open(
                    transport(), channel(ChannelState.INIT, TransportError.RESOURCE_EXHAUSTED), whole, 0, 100,
                    EnumSet.of(Access.REMOTE_WRITE))).error());
            assertEquals(TransportError.INVALID_ARGUMENT, assertThrows(TransportException.class, () -> RemoteSlice.open(
                    transport(), channel(ChannelState.INIT, TransportError.UNAVAILABLE), whole, 8000, 500,
                    EnumSet.of(Access.REMOTE_READ))).error(), "a slice outside the region");
            assertTrue(registered.isEmpty(), "nothing registered for a refusal");
        }
    }
}
