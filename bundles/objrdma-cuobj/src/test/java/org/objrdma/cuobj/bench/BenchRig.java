package org.objrdma.cuobj.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.objrdma.api.session.Op;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.CuObjAgent;
import org.objrdma.wire.AgentKeys;
import org.objrdma.cuobj.CuObj;
import org.objrdma.cuobj.CuObjRDMATunable;
import org.objrdma.cuobj.CuObjServer;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * What the benchmarks share: a server TCP transport with a {@link CuObjServer}, a client TCP transport (the
 * client's memory agent) with registered memory and a {@link CuObjAgent} of {@code lanes} lanes, and for the
 * reference a raw transport channel per lane connected to a client channel of its own, over the same memory.
 */
final class BenchRig implements AutoCloseable {
    final TcpTransport serverTransport;
    final TcpTransport clientTransport;
    final Arena arena = Arena.ofShared();
    final ClientMemory clientMemory;
    final CuObjAgent agent;
    final CuObjServer server;
    final MemorySegment serverMemory;
    final MemoryRegion serverRegion;
    final Channel[] rawServerChannels;
    final Channel[] rawClientChannels;
    /** The raw reference's access to the client memory: a grant of all of it on each raw client channel. */
    final org.objrdma.api.transport.MemoryGrant[] rawGrants;
    /** The descriptors' grants, revoked at close. */
    private final List<org.objrdma.client.CuObjGrant> grants = new java.util.ArrayList<>();

    BenchRig(long bytes, int lanes) throws Exception {
        TcpSettings settings = TcpSettings.loopbackDefaults();
        serverTransport = TcpTransport.start(settings, () -> Telemetry.NOOP);
        clientTransport = TcpTransport.start(settings, () -> Telemetry.NOOP);
        byte[] key = AgentKeys.generate();
        MemorySegment clientSegment = arena.allocate(bytes, 4096);
        clientSegment.fill((byte) 0x3C);
        clientMemory = ClientMemory.register(clientTransport, clientSegment);
        agent = CuObjAgent.open(clientTransport, key, lanes, CuObjAgent.DEFAULT_MAX_REQUEST_SIZE);
        CuObjRDMATunable t = new CuObjRDMATunable();
        t.setAgentKey(key);
        t.setAllowAddresses("127.0.0.0/8,::1"); // the client agents listen on loopback
        server = new CuObjServer(serverTransport, "127.0.0.1", 0, CuObj.CUOBJ_PROTO_RDMA_DC_V1, t);
        if (!server.isConnected()) {
            throw new IllegalStateException("server did not start");
        }
        serverMemory = arena.allocate(bytes, 4096);
        serverMemory.fill((byte) 0x5A);
        serverRegion = serverTransport.register(serverMemory, EnumSet.of(Access.LOCAL_WRITE));
        rawServerChannels = new Channel[lanes];
        rawClientChannels = new Channel[lanes];
        rawGrants = new org.objrdma.api.transport.MemoryGrant[lanes];
        for (int i = 0; i < lanes; i++) {
            rawClientChannels[i] = clientTransport.openChannel(ChannelOptions.DEFAULT);
            rawGrants[i] = rawClientChannels[i].grant(clientMemory.region(), 0, bytes,
                    EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE));
            rawServerChannels[i] = serverTransport.openChannel(new ChannelOptions(640, 1, 10, Duration.ofSeconds(10)));
            rawServerChannels[i].connect(rawClientChannels[i].localEndpoint()); // the one-sided shape, as the facade
        }
    }

    String descriptor(Op op, long offset, long size, int lane) throws TransportException {
        org.objrdma.client.CuObjGrant g = agent.descriptor(clientMemory, offset, size, op, lane);
        grants.add(g);
        return g.descriptor().format();
    }

    /** What the raw reference on {@code lane} addresses: {@code [offset, +size)} of the client memory's grant. */
    org.objrdma.api.transport.RemoteRegion rawRemote(int lane, long offset, long size) {
        return rawGrants[lane].asRemote().slice(offset, size);
    }

    long clientAddress(long offset) {
        return clientMemory.segment().address() + offset;
    }

    static void check(BatchResult r) {
        if (!r.isSuccess()) {
            throw new IllegalStateException("raw transfer failed: " + r);
        }
    }

    static List<WorkRequest> one(WorkRequest wr) {
        return List.of(wr);
    }

    @Override
    public void close() {
        grants.forEach(org.objrdma.client.CuObjGrant::close);
        for (int i = 0; i < rawServerChannels.length; i++) {
            rawServerChannels[i].close();
            rawClientChannels[i].close();
        }
        server.close();
        agent.close();
        clientMemory.close();
        serverRegion.close();
        serverTransport.close();
        clientTransport.close();
        arena.close();
    }
}
