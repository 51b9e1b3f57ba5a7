package org.objrdma.transport.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WorkRequest;

/** The exported factory a plain-Java client uses: real transports, real sockets. */
class TcpTransportsTest {

    @Test
    void startsFromConfigurationStylePropertiesAndMovesBytes() throws Exception {
        try (StandaloneTcpTransport server = TcpTransports.start(Map.of("bind.address", "127.0.0.1",
                     "frame.size", "1048576", "tcp.no.delay", "true"));
             StandaloneTcpTransport client = TcpTransports.startOnLoopback();
             Arena arena = Arena.ofShared()) {
            assertTrue(server.agentAddress().getAddress().isLoopbackAddress());
            assertTrue(server.isAvailable());
            MemorySegment clientMemory = arena.allocate(3 << 20, 4096);
            MemorySegment staging = arena.allocate(3 << 20, 4096);
            staging.fill((byte) 0x5a);
            MemoryRegion clientRegion = client.register(clientMemory,
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            MemoryRegion stagingRegion = server.register(staging, EnumSet.of(Access.LOCAL_WRITE));
            Channel clientChannel = client.openChannel(ChannelOptions.DEFAULT);
            Channel serverChannel = server.openChannel(ChannelOptions.DEFAULT);
            serverChannel.connect(clientChannel.localEndpoint());
            BatchResult r = serverChannel.submit(List.of(WorkRequest.write(1, ScatterGatherEntry.of(stagingRegion),
                    new RemoteRegion(clientRegion.address(), clientRegion.length(), clientRegion.rkey()))), Duration.ofSeconds(20)).get(20, TimeUnit.SECONDS);
            assertTrue(r.isSuccess(), r.toString());
            assertEquals(-1, clientMemory.mismatch(staging));
        }
    }

    @Test
    void unknownOrInvalidPropertiesAreRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TcpTransports.start(Map.of("frame.sise", 4096)));
        assertTrue(e.getMessage().contains("frame.sise"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> TcpTransports.start(Map.of("port", "eighty")));
        assertTrue(e.getMessage().contains("port"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> TcpTransports.start(Map.of("key.length", 8)));
        assertTrue(e.getMessage().contains("key.length"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> TcpTransports.start(Map.of("tcp.no.delay", "yes")));
        assertTrue(e.getMessage().contains("tcp.no.delay"), e.getMessage());
    }

    @Test
    void closeIsIdempotentAndEndsAvailability() throws Exception {
        StandaloneTcpTransport t = TcpTransports.startOnLoopback();
        t.close();
        t.close();
        assertFalse(t.isAvailable());
    }
}
