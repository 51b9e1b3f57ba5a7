package org.objrdma.transport.tcp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryGrant;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/**
 * What the TCP grant table adds beyond the shared grant rules: the per-channel limit, granting before connect
 * (the one-sided shape), and a revoke while a peer is in the middle of writing into the slice.
 */
class TcpGrantTest {
    private static final Set<Access> RW = EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE);

    private final List<AutoCloseable> resources = new ArrayList<>();

    @AfterEach
    void closeAll() {
        for (int i = resources.size() - 1; i >= 0; i--) {
            TcpTransport.closeQuietly(resources.get(i));
        }
        resources.clear();
    }

    private <T extends AutoCloseable> T later(T t) {
        resources.add(t);
        return t;
    }

    private TcpTransport transport(Map<String, Object> overrides) throws Exception {
        return later(TcpTransport.start(TcpSettings.from(TcpSettings.configWith(overrides), null),
                () -> Telemetry.NOOP));
    }

    private MemoryRegion localOnly(TcpTransport t, long size, byte fill) throws TransportException {
        MemorySegment m = later(Arena.ofShared()).allocate(size, 4096);
        m.fill(fill);
        return later(t.register(m, EnumSet.of(Access.LOCAL_WRITE)));
    }

    @Test
    void grantsPerChannelAreBounded() throws Exception {
        TcpTransport t = transport(Map.of("max.grants.per.channel", 3));
        Channel c = later(t.openChannel(ChannelOptions.DEFAULT));
        MemoryRegion r = localOnly(t, 4096, (byte) 0);
        List<MemoryGrant> three = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            three.add(c.grant(r, i * 100, 100, RW));
        }
        TransportException e = assertThrows(TransportException.class, () -> c.grant(r, 0, 10, RW));
        assertEquals(TransportError.RESOURCE_EXHAUSTED, e.error());
        assertTrue(e.getMessage().contains("max.grants.per.channel"), e.getMessage());
        assertEquals(3, ((TcpChannel) c).grantCount(), "the refused grant left nothing behind");
        three.get(0).revoke();
        assertEquals(2, ((TcpChannel) c).grantCount());
        c.grant(r, 0, 10, RW).revoke(); // room again
        assertNull(((TcpChannel) c).grantByRkey(three.get(0).rkey()), "the revoked grant is out of the table");
    }

    @Test
    void oneSidedClientGrantsBeforeTheServerConnects() throws Exception {
        TcpTransport server = transport(Map.of());
        TcpTransport client = transport(Map.of());
        Channel lane = later(client.openChannel(ChannelOptions.DEFAULT));
        MemoryRegion buffer = localOnly(client, 8192, (byte) 0x5A);
        MemoryGrant g = lane.grant(buffer, 4096, 4096, EnumSet.of(Access.REMOTE_WRITE));
        assertEquals(ChannelState.INIT, lane.state());

        Channel serverSide = later(server.openChannel(ChannelOptions.DEFAULT));
        serverSide.connect(lane.localEndpoint());
        MemorySegment src = later(Arena.ofShared()).allocate(4096, 4096);
        src.fill((byte) 0x11);
        MemoryRegion s = later(server.register(src, EnumSet.of(Access.LOCAL_WRITE)));
        serverSide.post(WorkRequest.write(1, ScatterGatherEntry.of(s), g.asRemote()));
        assertEquals(WcStatus.SUCCESS, await(serverSide).status());
        for (long i = 0; i < 4096; i++) {
            assertEquals((byte) 0x5A, buffer.segment().get(ValueLayout.JAVA_BYTE, i), "before the slice, byte " + i);
            assertEquals((byte) 0x11, buffer.segment().get(ValueLayout.JAVA_BYTE, 4096 + i), "in the slice");
        }
    }

    @Test
    void revokeWaitsOutAWriteInProgressThenCutsIt() throws Exception {
        TcpTransport t = transport(Map.of("region.close.grace.ms", 200L, "frame.size", 1 << 20));
        Channel lane = later(t.openChannel(ChannelOptions.DEFAULT));
        MemoryRegion buffer = localOnly(t, 1 << 20, (byte) 0x5A);
        MemoryGrant g = lane.grant(buffer, 0, 1 << 20, EnumSet.of(Access.REMOTE_WRITE));
        EndpointInfo.Tcp ep = (EndpointInfo.Tcp) lane.localEndpoint();
        byte[] code = new byte[1];
        RawPeer peer = later(RawPeer.dial(ep, ep.key(), RawPeer.someone(), code));
        assertEquals(Wire.REPLY_OK, code[0]);
        // a 64 KiB WRITE through the grant, of which only 1 KiB arrives: the reader waits inside the slice
        peer.frame(Wire.REQUEST, 0, 0, 1, g.address(), 64 * 1024, g.rkey());
        peer.frame(Wire.REQUEST_DATA, 0, 0, 1, 0, 64 * 1024, 0);
        peer.bytes(1024, (byte) 0x22);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (buffer.segment().get(ValueLayout.JAVA_BYTE, 1023) != 0x22 && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(1);
        }
        assertEquals((byte) 0x22, buffer.segment().get(ValueLayout.JAVA_BYTE, 1023), "the first KiB landed");

        long start = System.nanoTime();
        g.revoke();
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(took >= 150, "revoke waited for the stalled frame before cutting it (" + took + " ms)");
        assertFalse(g.isValid());
        // the rest of the payload never lands: the connection is gone
        try {
            peer.bytes(63 * 1024, (byte) 0x33);
        } catch (java.io.IOException expected) {
            // reset by the agent
        }
        TimeUnit.MILLISECONDS.sleep(100);
        for (long i = 1024; i < 64 * 1024; i++) {
            assertEquals((byte) 0x5A, buffer.segment().get(ValueLayout.JAVA_BYTE, i), "byte " + i + " after revoke");
        }
        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (lane.state() != ChannelState.ERROR && System.nanoTime() < deadline) {
            TimeUnit.MILLISECONDS.sleep(5);
        }
        assertEquals(ChannelState.ERROR, lane.state());
    }

    private static Completion await(Channel c) throws InterruptedException {
        Completion[] out = new Completion[1];
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (c.poll(out) == 0) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("no completion on " + c);
            }
            TimeUnit.MICROSECONDS.sleep(100);
        }
        return out[0];
    }
}
