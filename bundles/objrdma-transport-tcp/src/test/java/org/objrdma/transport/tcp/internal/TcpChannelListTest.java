package org.objrdma.transport.tcp.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelInfo;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.MemoryGrant;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;

/** {@code Transport.channels()} on TCP: every open channel with its state, peer, grants and bytes; closed ones gone. */
class TcpChannelListTest {

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

    private TcpTransport transport() throws Exception {
        return later(TcpTransport.start(TcpSettings.from(TcpSettings.configWith(Map.of()), null), () -> Telemetry.NOOP));
    }

    private MemoryRegion localOnly(TcpTransport t, long size) throws Exception {
        MemorySegment m = later(Arena.ofShared()).allocate(size, 4096);
        return later(t.register(m, EnumSet.of(Access.LOCAL_WRITE)));
    }

    private static String peer(InetSocketAddress agent, long channelId) {
        return agent.getHostString() + ":" + agent.getPort() + "#" + channelId;
    }

    @Test
    void channelsShowStatePeerGrantsAndBytesUntilClosed() throws Exception {
        TcpTransport server = transport();
        TcpTransport client = transport();
        assertEquals(List.of(), server.channels());

        Channel lane = later(client.openChannel(ChannelOptions.DEFAULT));
        MemoryRegion buffer = localOnly(client, 8192);
        MemoryGrant grant = lane.grant(buffer, 0, 8192, EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE));
        assertEquals(List.of(new ChannelInfo(lane.id(), ChannelState.INIT, "", 1, 0, 0)), client.channels());

        Channel serverSide = later(server.openChannel(ChannelOptions.DEFAULT));
        serverSide.connect(lane.localEndpoint());
        MemoryRegion source = localOnly(server, 8192);
        serverSide.post(WorkRequest.write(1, new ScatterGatherEntry(source, 0, 4096), grant.asRemote()));
        assertEquals(WcStatus.SUCCESS, await(serverSide).status());
        serverSide.post(WorkRequest.read(2, new ScatterGatherEntry(source, 4096, 1024), grant.asRemote()));
        assertEquals(WcStatus.SUCCESS, await(serverSide).status());

        assertEquals(List.of(new ChannelInfo(serverSide.id(), ChannelState.CONNECTED,
                peer(client.agentAddress(), lane.id()), 0, 4096, 1024)), server.channels());
        // the accepting side learns its dialer in the handshake; its own requests moved nothing
        waitFor(() -> client.channels().get(0).state() == ChannelState.CONNECTED);
        assertEquals(List.of(new ChannelInfo(lane.id(), ChannelState.CONNECTED,
                peer(server.agentAddress(), serverSide.id()), 1, 0, 0)), client.channels());

        Channel idle = later(server.openChannel(ChannelOptions.DEFAULT));
        assertEquals(List.of(serverSide.id(), idle.id()), server.channels().stream().map(ChannelInfo::id).toList(),
                "sorted by id");
        serverSide.close();
        assertEquals(List.of(new ChannelInfo(idle.id(), ChannelState.INIT, "", 0, 0, 0)), server.channels());
        grant.revoke();
        waitFor(() -> client.channels().get(0).grants() == 0);
    }

    @Test
    void aClosedTransportListsNothing() throws Exception {
        TcpTransport t = transport();
        later(t.openChannel(ChannelOptions.DEFAULT));
        assertEquals(1, t.channels().size());
        t.close();
        assertTrue(t.channels().isEmpty(), t.channels().toString());
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not met in 30 s");
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
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
