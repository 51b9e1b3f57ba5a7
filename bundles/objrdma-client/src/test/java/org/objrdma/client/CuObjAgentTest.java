package org.objrdma.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.TransportError;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.TransportLevel;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.wire.AgentKeys;
import org.objrdma.wire.CuObjDescriptor;
import org.objrdma.wire.Errno;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * The cuObject client side over two real TCP transports: this test plays the server with raw transport
 * operations (the facade has its own end-to-end tests), so what is checked here is exactly what a descriptor
 * lets a server do.
 */
class CuObjAgentTest {
    private static final int SIZE = 1 << 20;

    private TcpTransport clientTransport;
    private TcpTransport serverTransport;
    private Arena arena;
    private byte[] key;
    private ClientMemory memory;
    private CuObjAgent agent;
    private MemoryRegion serverRegion;
    private final List<Channel> serverChannels = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        clientTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        serverTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        arena = Arena.ofShared();
        key = AgentKeys.generate();
        memory = ClientMemory.register(clientTransport, arena.allocate(SIZE, 4096));
        agent = CuObjAgent.open(clientTransport, key);
        serverRegion = serverTransport.register(arena.allocate(SIZE, 4096), EnumSet.of(Access.LOCAL_WRITE));
    }

    @AfterEach
    void stop() {
        serverChannels.forEach(Channel::close);
        agent.close();
        memory.close();
        serverRegion.close();
        clientTransport.close();
        serverTransport.close();
        arena.close();
    }

    private Channel serverConnect(CuObjDescriptor d, byte[] withKey) throws TransportException {
        Channel c = serverTransport.openChannel(ChannelOptions.DEFAULT);
        serverChannels.add(c);
        c.connect(d.tcpEndpoint(withKey).value());
        return c;
    }

    private static BatchResult run(Channel c, WorkRequest wr) {
        return c.submit(List.of(wr), Duration.ofSeconds(10)).join();
    }

    private static void fill(MemorySegment s, long seed) {
        byte[] b = new byte[(int) s.byteSize()];
        new Random(seed).nextBytes(b);
        MemorySegment.copy(MemorySegment.ofArray(b), 0, s, 0, b.length);
    }

    @Test
    void aDescriptorNamesTheAgentChannelAndTheRegionTheOperationNeeds() throws Exception {
        CuObjDescriptor get = agent.descriptor(memory, 4096, 8192, Op.GET).descriptor();
        CuObjDescriptor put = agent.descriptor(memory, 4096, 8192, Op.PUT).descriptor();
        assertEquals(clientTransport.agentAddress(), get.tcpAgentAddress().value());
        assertEquals(agent.channel(0).id(), get.targetNumber());
        assertEquals(memory.segment().address() + 4096, get.remoteAddress());
        assertEquals(8192, get.regionSize());
        assertNotEquals(memory.region().rkey(), get.rkey(), "a grant's key, never the registration's");
        assertNotEquals(memory.region().rkey(), put.rkey());
        assertNotEquals(get.rkey(), put.rkey(), "one grant per descriptor");
        assertEquals(81, get.format().length());
    }

    @Test
    void theServerWritesThroughAGetDescriptorAndReadsThroughAPutDescriptor() throws Exception {
        fill(serverRegion.segment(), 1);
        CuObjDescriptor get = agent.descriptor(memory, 0, SIZE, Op.GET).descriptor();
        Channel c = serverConnect(get, key);
        assertTrue(run(c, WorkRequest.write(1, ScatterGatherEntry.of(serverRegion), get.remoteRegion())).isSuccess());
        assertEquals(-1, memory.segment().mismatch(serverRegion.segment()));

        fill(memory.segment(), 2);
        CuObjDescriptor put = agent.descriptor(memory, 0, SIZE, Op.PUT).descriptor();
        assertEquals(get.targetNumber(), put.targetNumber(), "one lane, one channel, one connection");
        assertTrue(run(c, WorkRequest.read(2, ScatterGatherEntry.of(serverRegion), put.remoteRegion())).isSuccess());
        assertEquals(-1, memory.segment().mismatch(serverRegion.segment()));
    }

    @Test
    void aGetDescriptorDoesNotLetTheServerReadTheMemory() throws Exception {
        CuObjDescriptor get = agent.descriptor(memory, 0, SIZE, Op.GET).descriptor();
        Channel c = serverConnect(get, key);
        BatchResult r = run(c, WorkRequest.read(1, ScatterGatherEntry.of(serverRegion), get.remoteRegion()));
        assertEquals(WcStatus.REM_ACCESS_ERR, r.completions().get(0).status());
    }

    @Test
    void aPutDescriptorDoesNotLetTheServerWriteTheMemory() throws Exception {
        CuObjDescriptor put = agent.descriptor(memory, 0, SIZE, Op.PUT).descriptor();
        Channel c = serverConnect(put, key);
        BatchResult r = run(c, WorkRequest.write(1, ScatterGatherEntry.of(serverRegion), put.remoteRegion()));
        assertEquals(WcStatus.REM_ACCESS_ERR, r.completions().get(0).status());
    }

    @Test
    void aServerWithoutTheAgentKeyIsRefused() throws Exception {
        CuObjDescriptor get = agent.descriptor(memory, 0, SIZE, Op.GET).descriptor();
        TransportException e = assertThrows(TransportException.class, () -> serverConnect(get, AgentKeys.generate()));
        assertEquals(TransportError.AUTHENTICATION_FAILED, e.error());
        // the refusal did not use up the channel: the right key still connects
        serverConnect(get, key);
    }

    @Test
    void aFailedLaneIsResetAndItsDescriptorsStayValid() throws Exception {
        fill(serverRegion.segment(), 9);
        CuObjDescriptor first = agent.descriptor(memory, 0, SIZE, Op.GET).descriptor();
        Channel c = serverConnect(first, key);
        run(c, WorkRequest.write(1, ScatterGatherEntry.of(serverRegion), first.remoteAddress(), first.rkey() ^ 1));
        assertEquals(ChannelState.ERROR, c.state(), "a bad rkey ends the connection, as on an RC queue pair");
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (agent.channel(0).state() == ChannelState.CONNECTED && System.nanoTime() < deadline) {
            Thread.sleep(5); // the client's channel learns that the connection ended; channel(0) then resets it
        }
        assertEquals(ChannelState.INIT, agent.channel(0).state());
        CuObjDescriptor second = agent.descriptor(memory, 0, SIZE, Op.GET).descriptor();
        assertEquals(first.targetNumber(), second.targetNumber(), "same channel id: the server dials the same lane");
        assertNotEquals(first.rkey(), second.rkey(), "the reset revoked the lane's grants; a new descriptor, a new grant");
        Channel fresh = serverConnect(first, key);
        assertTrue(run(fresh, WorkRequest.write(2, ScatterGatherEntry.of(serverRegion), second.remoteRegion())).isSuccess());
        assertEquals(-1, memory.segment().mismatch(serverRegion.segment()));
    }

    @Test
    void aDescriptorsGrantEndsWithTheTransferOrWhenClosed() throws Exception {
        fill(serverRegion.segment(), 3);
        CuObjDescriptor[] seen = new CuObjDescriptor[1];
        Channel[] connection = new Channel[1];
        long got = agent.get(memory, 0, SIZE, req -> {
            try {
                seen[0] = req.descriptor();
                connection[0] = serverConnect(req.descriptor(), key);
                return run(connection[0], WorkRequest.write(1, ScatterGatherEntry.of(serverRegion),
                        req.descriptor().remoteRegion())).isSuccess() ? req.size() : -Errno.EIO;
            } catch (Exception e) {
                return -Errno.EIO;
            }
        });
        assertEquals(SIZE, got);
        BatchResult after = run(connection[0], WorkRequest.write(2, ScatterGatherEntry.of(serverRegion),
                seen[0].remoteRegion()));
        assertEquals(WcStatus.REM_ACCESS_ERR, after.completions().get(0).status(), "get() revoked the grant");

        CuObjGrant grant = agent.descriptor(memory, 0, SIZE, Op.GET);
        assertTrue(grant.isValid());
        Channel c = serverConnect(grant.descriptor(), key);
        grant.close();
        grant.close(); // idempotent
        assertFalse(grant.isValid());
        assertEquals(WcStatus.REM_ACCESS_ERR, run(c, WorkRequest.write(3, ScatterGatherEntry.of(serverRegion),
                grant.descriptor().remoteRegion())).completions().get(0).status(), "a closed grant reaches nothing");
    }

    @Test
    void theRegistrationsOwnKeyReachesNothing() throws Exception {
        CuObjDescriptor get = agent.descriptor(memory, 0, SIZE, Op.GET).descriptor();
        Channel c = serverConnect(get, key);
        assertEquals(WcStatus.REM_ACCESS_ERR, run(c, WorkRequest.write(1, ScatterGatherEntry.of(serverRegion),
                get.remoteAddress(), memory.region().rkey())).completions().get(0).status());
    }

    @Test
    void aClosedLaneIsReplacedByANewChannel() throws Exception {
        CuObjDescriptor first = agent.descriptor(memory, 0, SIZE, Op.GET).descriptor();
        agent.channel(0).close();
        CuObjDescriptor second = agent.descriptor(memory, 0, SIZE, Op.GET).descriptor();
        assertNotEquals(first.targetNumber(), second.targetNumber());
        assertThrows(TransportException.class, () -> serverConnect(first, key), "the closed channel is gone");
        serverConnect(second, key);
    }

    @Test
    void getAndPutSplitTransfersIntoRequestsTheHandlerServes() throws Exception {
        CuObjAgent small = CuObjAgent.open(clientTransport, key, 2, 256 << 10);
        try {
            fill(serverRegion.segment(), 3);
            List<CuObjRequest> seen = new ArrayList<>();
            Channel[] connection = new Channel[1];
            CuObjRequestHandler server = req -> {
                seen.add(req);
                try {
                    if (connection[0] == null) {
                        connection[0] = serverConnect(req.descriptor(), key);
                    }
                    ScatterGatherEntry local = new ScatterGatherEntry(serverRegion, req.objectOffset(), (int) req.size());
                    WorkRequest wr = req.op() == Op.GET
                            ? WorkRequest.write(7, local, req.remoteStart(), req.descriptor().rkey())
                            : WorkRequest.read(8, local, req.remoteStart(), req.descriptor().rkey());
                    return run(connection[0], wr).isSuccess() ? req.size() : -Errno.EIO;
                } catch (TransportException e) {
                    return -Errno.ECONNREFUSED;
                }
            };
            assertEquals(SIZE, small.run(Op.GET, memory, 0, SIZE, server, 1));
            assertEquals(4, seen.size());
            for (int i = 0; i < 4; i++) {
                CuObjRequest r = seen.get(i);
                assertEquals(i * (256L << 10), r.objectOffset());
                assertEquals(memory.segment().address() + r.objectOffset(), r.remoteStart());
                assertEquals(256 << 10, r.size());
                assertEquals(Optional.of(new org.objrdma.wire.CuObjTokenHeader.Span(r.remoteStart(), r.size())),
                        org.objrdma.wire.CuObjTokenHeader.parse(r.headerValue()).value().span());
            }
            assertEquals(-1, memory.segment().mismatch(serverRegion.segment()));

            fill(memory.segment(), 4);
            seen.clear();
            assertEquals(SIZE, small.run(Op.PUT, memory, 0, SIZE, server, 1));
            assertEquals(4, seen.size());
            assertEquals(-1, memory.segment().mismatch(serverRegion.segment()));
        } finally {
            small.close();
        }
    }

    @Test
    void helperReturnsFollowTheHandlerAndRefuseBadArguments() throws Exception {
        CuObjAgent small = CuObjAgent.open(clientTransport, key, 1, 4096);
        try {
            assertEquals(4096 + 100, small.get(memory, 0, 3 * 4096, req -> req.objectOffset() == 0 ? 4096 : 100),
                    "a short GET chunk ends the transfer (the object ended)");
            assertEquals(-Errno.ECONNRESET, small.get(memory, 0, 8192, req -> -Errno.ECONNRESET));
            assertEquals(-Errno.EIO, small.get(memory, 0, 8192, req -> req.size() + 1), "more than asked");
            assertEquals(-Errno.EIO, small.put(memory, 0, 8192, req -> req.size() - 1), "a short PUT");
            assertEquals(-Errno.EINVAL, small.get(memory, 0, 0, req -> 0));
            assertEquals(-Errno.EINVAL, small.get(memory, SIZE - 10, 11, req -> 0));
            assertEquals(-Errno.EINVAL, small.get(memory, -1, 10, req -> 0));
            assertEquals(-Errno.EINVAL, small.get(memory, 0, 10, null));
            assertEquals(-Errno.EINVAL, small.run(Op.GET, memory, 0, 10, req -> 10, 1), "no lane 1");
        } finally {
            small.close();
        }
        assertThrows(TransportException.class, () -> small.descriptor(memory, 0, 1, Op.GET), "closed");
    }

    @Test
    void openAndRegistrationRefuseWhatTheyCannotServe() throws Exception {
        Transport verbs = new Transport() {
            @Override public String name() { return "verbs:fake"; }
            @Override public TransportLevel level() { return TransportLevel.VERBS_RC; }
            @Override public boolean isAvailable() { return true; }
            @Override public Optional<String> unavailabilityCause() { return Optional.empty(); }
            @Override public MemoryRegion register(MemorySegment s, java.util.Set<Access> a) { throw new AssertionError(); }
            @Override public Channel openChannel(ChannelOptions o) { throw new AssertionError(); }
        };
        TransportException e = assertThrows(TransportException.class, () -> CuObjAgent.open(verbs, key));
        assertEquals(TransportError.INVALID_ARGUMENT, e.error());
        assertTrue(e.getMessage().contains("DC"));
        assertEquals(TransportError.INVALID_ARGUMENT,
                assertThrows(TransportException.class, () -> CuObjAgent.open(clientTransport, new byte[8])).error());
        assertEquals(TransportError.INVALID_ARGUMENT, assertThrows(TransportException.class,
                () -> CuObjAgent.open(clientTransport, key, 0, 1)).error());
        assertEquals(TransportError.INVALID_ARGUMENT, assertThrows(TransportException.class,
                () -> CuObjAgent.open(clientTransport, key, 1, (1L << 30) + 1)).error());

        int regionsBefore = clientTransport.regionCount();
        MemorySegment huge = MemorySegment.NULL.reinterpret(ClientMemory.MAX_REGISTRATION + 1);
        assertEquals(TransportError.INVALID_ARGUMENT,
                assertThrows(TransportException.class, () -> ClientMemory.register(clientTransport, huge)).error());
        assertEquals(TransportError.INVALID_ARGUMENT, assertThrows(TransportException.class,
                () -> ClientMemory.register(clientTransport, MemorySegment.ofArray(new byte[16]))).error(), "heap");
        assertEquals(regionsBefore, clientTransport.regionCount(), "a refusal leaves nothing registered");

        assertThrows(IllegalArgumentException.class, () -> agent.descriptor(memory, 0, SIZE + 1, Op.GET));
        ClientMemory other = ClientMemory.register(serverTransport, arena.allocate(4096, 4096));
        assertThrows(IllegalArgumentException.class, () -> agent.descriptor(other, 0, 1, Op.GET));
        other.close();
        other.close(); // idempotent
        assertTrue(!other.isOpen());
    }

    @Test
    void lanesAreSeparateChannelsAndSurviveTheOthersFailure() throws Exception {
        CuObjAgent two = CuObjAgent.open(clientTransport, key, 2, CuObjAgent.DEFAULT_MAX_REQUEST_SIZE);
        try {
            CuObjDescriptor a = two.descriptor(memory, 0, 4096, Op.GET, 0).descriptor();
            CuObjDescriptor b = two.descriptor(memory, 0, 4096, Op.GET, 1).descriptor();
            assertNotEquals(a.targetNumber(), b.targetNumber());
            Channel ca = serverConnect(a, key);
            Channel cb = serverConnect(b, key);
            run(ca, WorkRequest.write(1, new ScatterGatherEntry(serverRegion, 0, 4096), a.remoteAddress(), 0));
            assertEquals(ChannelState.CONNECTED, cb.state());
            assertTrue(run(cb, WorkRequest.write(2, new ScatterGatherEntry(serverRegion, 0, 4096), b.remoteRegion()))
                    .isSuccess());
            assertArrayEquals(serverRegion.segment().asSlice(0, 4096).toArray(ValueLayout.JAVA_BYTE),
                    memory.segment().asSlice(0, 4096).toArray(ValueLayout.JAVA_BYTE));
        } finally {
            two.close();
        }
    }

    /**
     * Issue 28: gateway a dialed the agent first and keeps its connection; a descriptor of the same lane sent to
     * gateway c cannot be served there (c's dial is refused). Each named server gets its own channel instead.
     */
    @Test
    void eachNamedServerGetsItsOwnChannelSoASecondGatewayCanServeTheAgent() throws Exception {
        TcpTransport gatewayC = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        MemoryRegion cRegion = gatewayC.register(arena.allocate(SIZE, 4096), EnumSet.of(Access.LOCAL_WRITE));
        Channel fromC = gatewayC.openChannel(ChannelOptions.DEFAULT);
        try {
            fill(serverRegion.segment(), 21);
            fill(cRegion.segment(), 22);
            // the lane is taken by the first server for good: the second one is refused
            CuObjDescriptor lane = agent.descriptor(memory, 0, SIZE, Op.GET).descriptor();
            serverConnect(lane, key);
            Channel refused = gatewayC.openChannel(ChannelOptions.DEFAULT);
            assertThrows(TransportException.class, () -> refused.connect(lane.tcpEndpoint(key).value()));
            refused.close();

            CuObjDescriptor forA = agent.descriptor(memory, 0, SIZE, Op.GET, "http://a").descriptor();
            CuObjDescriptor forC = agent.descriptor(memory, 0, SIZE, Op.GET, "http://c").descriptor();
            assertNotEquals(forA.targetNumber(), forC.targetNumber(), "one channel per server");
            assertNotEquals(lane.targetNumber(), forA.targetNumber(), "the lanes stay the single-gateway clients'");
            assertEquals(forA.targetNumber(), agent.descriptor(memory, 0, 4096, Op.GET, "http://a").descriptor()
                    .targetNumber(), "a server keeps its channel");
            Channel a = serverConnect(forA, key);
            fromC.connect(forC.tcpEndpoint(key).value());
            assertTrue(run(a, WorkRequest.write(1, ScatterGatherEntry.of(serverRegion), forA.remoteRegion())).isSuccess());
            assertEquals(-1, memory.segment().mismatch(serverRegion.segment()));
            assertTrue(run(fromC, WorkRequest.write(2, ScatterGatherEntry.of(cRegion), forC.remoteRegion())).isSuccess());
            assertEquals(-1, memory.segment().mismatch(cRegion.segment()), "gateway c wrote through its own channel");
        } finally {
            fromC.close();
            cRegion.close();
            gatewayC.close();
        }
    }

    @Test
    void serverNamesAreCheckedAndBounded() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> agent.channel(""));
        assertEquals(-Errno.EINVAL, agent.get((String) null, memory, 0, 4096, r -> r.size()));
        for (int i = 0; i < CuObjAgent.MAX_SERVERS; i++) {
            agent.channel("server-" + i);
        }
        TransportException full = assertThrows(TransportException.class, () -> agent.channel("one-more"));
        assertEquals(TransportError.RESOURCE_EXHAUSTED, full.error());
        assertEquals(-Errno.EIO, agent.put("one-more", memory, 0, 4096, r -> r.size()));
        agent.close();
        assertEquals(TransportError.CLOSED, assertThrows(TransportException.class, () -> agent.channel("server-0")).error());
    }
}
