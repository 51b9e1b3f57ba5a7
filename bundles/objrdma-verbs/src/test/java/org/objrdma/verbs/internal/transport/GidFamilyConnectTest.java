package org.objrdma.verbs.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.Gid;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.internal.ComponentFixture;
import org.objrdma.verbs.internal.ffi.GidType;
import org.objrdma.verbs.internal.ffi.VerbsLibrary;

/**
 * A peer's token names a GID (RoCE clients send no LID): the queue pair connects by GID with a source GID of the
 * family the peer named — RoCE v1 link-local for hipObject's GID index 0, RoCE v2 IPv4-mapped for cuObject-style
 * clients — as the software device's table and {@code ibv_query_qp} show; the local endpoint then names that
 * source GID; a GID nobody owns fails the transfer as a lost path does.
 */
class GidFamilyConnectTest {
    static final Gid LOOPBACK_V4 = SourceGidTest.LO;

    ComponentFixture fixture;
    VerbsTransport transport;
    Arena arena;
    Channel a;
    Channel b;

    @BeforeEach
    void setUp() throws Exception {
        fixture = ComponentFixture.software();
        transport = (VerbsTransport) fixture.transport();
        arena = Arena.ofShared();
        a = transport.openChannel(ChannelOptions.DEFAULT);
        b = transport.openChannel(ChannelOptions.DEFAULT);
    }

    @AfterEach
    void tearDown() {
        fixture.close();
        arena.close();
    }

    /** The index of gid with type in the device's table, as activation read it. */
    int indexOf(Gid gid, GidType type) {
        DeviceInfo dev = transport.device();
        for (VerbsDevice.IndexedGid g : dev.gids()) {
            if (g.gid().equals(gid) && dev.gidTypes().get(g.index()) == type) {
                return g.index();
            }
        }
        throw new AssertionError("no " + type + " " + gid + " in " + dev.gids() + " " + dev.gidTypes());
    }

    /** The peer's endpoint as a RoCE client's token gives it: its QPN and PSN, a GID, LID 0. */
    static EndpointInfo.Verbs byGid(Channel peer, Gid gid) {
        EndpointInfo.Verbs e = (EndpointInfo.Verbs) peer.localEndpoint();
        return new EndpointInfo.Verbs(e.qpn(), e.psn(), gid, 0, e.port(), e.mtu());
    }

    VerbsLibrary.QpPath path(Channel ch) throws Exception {
        return transport.library().queryQpPath(((VerbsChannel) ch).queuePair());
    }

    Completion writeAtoB(long wrId) throws Exception {
        MemoryRegion src = transport.register(arena.allocate(8192, 4096), EnumSet.of(Access.LOCAL_WRITE));
        MemoryRegion dst = transport.register(arena.allocate(8192, 4096),
                EnumSet.copyOf(List.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE)));
        for (int i = 0; i < 8192; i++) {
            src.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + wrId));
        }
        a.post(WorkRequest.write(wrId, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey())));
        Completion c = VerbsTransportTest.pollOne(a);
        if (c.status() == WcStatus.SUCCESS) {
            assertEquals(-1, src.segment().mismatch(dst.segment()), "bytes differ");
        }
        return c;
    }

    @Test
    void anIpv4MappedPeerIsReachedFromTheRoceV2Gid() throws Exception {
        int v2 = indexOf(LOOPBACK_V4, GidType.ROCE_V2);
        a.connect(byGid(b, LOOPBACK_V4));
        VerbsLibrary.QpPath p = path(a);
        assertTrue(p.global(), p.toString());
        assertEquals(v2, p.sgidIndex(), p.toString());
        assertEquals(LOOPBACK_V4, p.dgid());
        assertEquals(LOOPBACK_V4, ((EndpointInfo.Verbs) a.localEndpoint()).gid(), "the reply names the source GID");
        b.connect(byGid(a, ((EndpointInfo.Verbs) a.localEndpoint()).gid()));
        assertEquals(v2, path(b).sgidIndex());
        assertEquals(Completion.success(1, WcOpcode.RDMA_WRITE, 8192), writeAtoB(1));
    }

    @Test
    void aLinkLocalPeerIsReachedFromTheRoceV1Gid() throws Exception {
        Gid linkLocal = transport.device().gidAt(0);
        int v1 = indexOf(linkLocal, GidType.ROCE_V1);
        a.connect(byGid(b, linkLocal));
        assertEquals(v1, path(a).sgidIndex());
        assertEquals(linkLocal, ((EndpointInfo.Verbs) a.localEndpoint()).gid());
        b.connect(byGid(a, linkLocal));
        assertEquals(v1, path(b).sgidIndex());
        assertEquals(Completion.success(2, WcOpcode.RDMA_WRITE, 8192), writeAtoB(2));
    }

    @Test
    void aGidNobodyOwnsConnectsButNothingArrives() throws Exception {
        Gid stranger = SourceGidTest.gid("00000000000000000000ffffc6336407"); // ::ffff:198.51.100.7
        a.connect(byGid(b, stranger));
        b.connect(byGid(a, LOOPBACK_V4));
        Completion c = writeAtoB(3);
        assertEquals(WcStatus.RETRY_EXC_ERR, c.status(), c.toString());
    }
}
