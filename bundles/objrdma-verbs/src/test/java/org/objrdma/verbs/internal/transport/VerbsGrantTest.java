package org.objrdma.verbs.internal.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelInfo;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.MemoryGrant;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.verbs.internal.ComponentFixture;

/**
 * Memory windows as the verbs transport uses them, beyond the shared grant rules: a revoked window is reused
 * with a new rkey tag (the old rkey stays dead), a grant is refused before connect, and a transport or region
 * closed with live grants frees every window first, so no destroy fails.
 */
class VerbsGrantTest {
    private static final Set<Access> WRITE = EnumSet.of(Access.REMOTE_WRITE);

    private ComponentFixture fixture;
    private VerbsTransport transport;
    private Arena arena;
    private Channel a;
    private Channel b;

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

    private MemoryRegion region(long size, Access... access) throws TransportException {
        MemorySegment m = arena.allocate(size, 4096);
        m.fill((byte) 0x5A);
        return transport.register(m, EnumSet.copyOf(List.of(access)));
    }

    private WcStatus writeThrough(MemoryGrant g, MemoryRegion src) throws Exception {
        a.post(WorkRequest.write(1, ScatterGatherEntry.of(src), g.asRemote()));
        return VerbsTransportTest.pollOne(a).status();
    }

    @Test
    void aRevokedWindowIsReusedUnderANewRkey() throws Exception {
        a.connect(b.localEndpoint());
        b.connect(a.localEndpoint());
        MemoryRegion staging = region(8192, Access.LOCAL_WRITE);
        MemoryRegion src = region(4096, Access.LOCAL_WRITE);
        MemoryGrant first = b.grant(staging, 0, 4096, WRITE);
        assertEquals(WcStatus.SUCCESS, writeThrough(first, src));
        first.revoke();
        MemoryGrant second = b.grant(staging, 0, 4096, WRITE);
        assertEquals(first.rkey() & ~0xff, second.rkey() & ~0xff, "the same window, kept for reuse");
        assertNotEquals(first.rkey(), second.rkey(), "with the next tag");
        assertEquals(WcStatus.REM_ACCESS_ERR, writeThrough(first, src), "the old rkey stays dead");
        assertEquals(1, ((VerbsChannel) b).grantCount());
    }

    @Test
    void channelsListEachQueuePairWithItsPeerAndLiveGrants() throws Exception {
        assertEquals(List.of(new ChannelInfo(a.id(), ChannelState.INIT, "", 0, -1, -1),
                new ChannelInfo(b.id(), ChannelState.INIT, "", 0, -1, -1)), transport.channels());
        a.connect(b.localEndpoint());
        b.connect(a.localEndpoint());
        MemoryGrant g = b.grant(region(4096, Access.LOCAL_WRITE), 0, 4096, WRITE);
        EndpointInfo.Verbs peerOfB = (EndpointInfo.Verbs) a.localEndpoint();
        ChannelInfo infoOfB = transport.channels().stream().filter(c -> c.id() == b.id()).findFirst().orElseThrow();
        assertEquals(ChannelState.CONNECTED, infoOfB.state());
        assertEquals(1, infoOfB.grants());
        assertTrue(infoOfB.peer().startsWith("qpn " + peerOfB.qpn() + " "), infoOfB.peer());
        g.revoke();
        a.close();
        assertEquals(List.of(b.id()), transport.channels().stream().map(ChannelInfo::id).toList());
        assertEquals(0, transport.channels().get(0).grants());
    }

    @Test
    void grantsNeedAConnectedChannel() throws Exception {
        MemoryRegion staging = region(4096, Access.LOCAL_WRITE);
        TransportException e = assertThrows(TransportException.class, () -> b.grant(staging, 0, 4096, WRITE));
        assertEquals(TransportError.WRONG_STATE, e.error(), e.getMessage());
        assertEquals(ChannelState.INIT, b.state());
    }

    @Test
    void closingWithLiveGrantsFreesEveryWindowFirst() throws Exception {
        a.connect(b.localEndpoint());
        b.connect(a.localEndpoint());
        MemoryRegion kept = region(8192, Access.LOCAL_WRITE);
        MemoryRegion closed = region(8192, Access.LOCAL_WRITE);
        MemoryGrant onKept = b.grant(kept, 0, 4096, WRITE);
        MemoryGrant onClosed = b.grant(closed, 4096, 4096, WRITE);
        closed.close(); // its grant is revoked first, else the device would refuse the deregistration (EBUSY)
        assertFalse(onClosed.isValid());
        assertTrue(onKept.isValid());
        transport.close();
        assertFalse(onKept.isValid());
        assertTrue(transport.closeSteps().stream().noneMatch(step -> step.contains("(")),
                () -> "every destroy succeeded: " + transport.closeSteps());
        assertTrue(transport.closeSteps().contains("pd"), transport.closeSteps().toString());
    }
}
