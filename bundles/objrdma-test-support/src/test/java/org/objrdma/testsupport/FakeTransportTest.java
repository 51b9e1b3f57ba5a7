package org.objrdma.testsupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

class FakeTransportTest {

    @Test
    void registrationsAreRecordedWithTheirCloseCalls() throws Exception {
        FakeTransport t = FakeTransport.builder("rec").firstKey(1).build();
        try (Arena arena = Arena.ofConfined()) {
            MemoryRegion a = t.register(arena.allocate(64), Set.of(Access.LOCAL_WRITE));
            MemoryRegion b = t.register(arena.allocate(64), Set.of(Access.LOCAL_WRITE));
            assertEquals(1, a.rkey());
            assertEquals(2, b.lkey());
            a.close();
            a.close();
            assertEquals(2, t.registered());
            assertEquals(1, t.deregistered());
            assertEquals(1, t.regionCount());
            assertEquals(List.of(a), t.closedTwice());
            assertTrue(((FakeRegion) a).memoryAliveAtClose);

            t.refuseNext.set(1);
            TransportException refused = assertThrows(TransportException.class,
                    () -> t.register(arena.allocate(64), Set.of(Access.LOCAL_WRITE)));
            assertEquals(TransportError.RESOURCE_EXHAUSTED, refused.error());
            assertEquals(TransportError.INVALID_ARGUMENT, assertThrows(TransportException.class,
                    () -> t.register(MemorySegment.ofArray(new byte[8]), Set.of(Access.LOCAL_WRITE))).error());
            t.register(arena.allocate(64), Set.of(Access.LOCAL_WRITE));
            assertEquals(3, t.registered());
        }
    }

    @Test
    void loopbackChannelsMoveBytesAndCheckKeysAndReceives() throws Exception {
        FakeTransport t = new FakeTransport("loop");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment from = arena.allocate(4096);
            from.fill((byte) 7);
            MemoryRegion source = t.register(from, EnumSet.of(Access.LOCAL_WRITE));
            MemoryRegion target = t.register(arena.allocate(4096), EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            Channel server = t.openChannel(ChannelOptions.DEFAULT);
            Channel client = t.openChannel(ChannelOptions.DEFAULT);
            server.connect(client.localEndpoint());
            WorkRequest write = WorkRequest.writeWithImm(1, new ScatterGatherEntry(source, 0, 4096),
                    target.address(), target.rkey(), 42);
            Completion rnr = server.submit(List.of(write), Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS).completions().get(0);
            assertEquals(WcStatus.RNR_RETRY_EXC_ERR, rnr.status(), "no receive posted at the peer");
            assertEquals(ChannelState.ERROR, server.state());
            server.reset();
            server.connect(client.localEndpoint());

            CompletableFuture<BatchResult> arrival = client.submit(List.of(WorkRequest.recv(9)), Duration.ofSeconds(5));
            assertTrue(server.submit(List.of(write), Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS).completions().get(0).isSuccess());
            Completion c = arrival.get(5, TimeUnit.SECONDS).completions().get(0);
            assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, c.opcode());
            assertEquals(42, c.immediate());
            assertArrayEquals(from.toArray(ValueLayout.JAVA_BYTE), target.segment().toArray(ValueLayout.JAVA_BYTE));

            WorkRequest outside = WorkRequest.write(2, new ScatterGatherEntry(source, 0, 16), target.address() + 4090,
                    target.rkey());
            assertEquals(WcStatus.REM_ACCESS_ERR, server.submit(List.of(outside), Duration.ofSeconds(5))
                    .get(5, TimeUnit.SECONDS).completions().get(0).status());
            assertEquals(2, t.openChannels());
            client.close();
            server.close();
            assertEquals(0, t.openChannels());
            assertEquals(2, t.opened.get());
            assertEquals(2, t.closed.get());
        }
    }

    @Test
    void channelModesAndARegistrar() throws Exception {
        assertEquals(TransportError.UNAVAILABLE, assertThrows(TransportException.class,
                () -> FakeTransport.builder("none").channels(FakeTransport.ChannelMode.NONE).build()
                        .openChannel(ChannelOptions.DEFAULT)).error());
        assertThrows(AssertionError.class, () -> FakeTransport.builder("no").channels(FakeTransport.ChannelMode.FORBIDDEN)
                .build().openChannel(ChannelOptions.DEFAULT));
        FakeTransport inert = FakeTransport.builder("inert").channels(FakeTransport.ChannelMode.INERT).build();
        Channel c = inert.openChannel(ChannelOptions.DEFAULT);
        assertTrue(c.submit(List.of(WorkRequest.recv(1)), Duration.ofSeconds(1)).get().completions().isEmpty());
        c.close();
        assertEquals(1, inert.closed.get());

        FakeTransport lending = FakeTransport.builder("verbs:fake0").level(TransportLevel.VERBS_RC)
                .flows(Transport.FLOW_RC_SESSION).registrar(new FakeTransport("real")).build();
        assertEquals(Set.of(Transport.FLOW_RC_SESSION), lending.flows());
        try (Arena arena = Arena.ofConfined()) {
            MemoryRegion r = lending.register(arena.allocate(64), Set.of(Access.LOCAL_WRITE));
            assertEquals("real", r.transportName());
            assertEquals(0, lending.registered(), "the registrar's registration, not the fake's");
            assertFalse(lending.unavailabilityCause().isPresent());
        }
    }
}
