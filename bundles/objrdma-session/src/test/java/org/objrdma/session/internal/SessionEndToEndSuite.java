package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.SessionState;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.staging.internal.BufferPool;
import org.objrdma.staging.internal.StagingSettings;

/**
 * hipobj-rc-v2 GET and PUT end to end through a real transport and the real staging pool, written once and run by
 * each transport ({@link TcpEndToEndTest}, {@link VerbsEndToEndTest}): the server side is a session core on one
 * transport, the client side a second transport of the same kind in the same process, doing what an RDMA client
 * does (register memory, open a channel, post a receive for a GET or WRITE_WITH_IMM into the staging region a PUT's
 * PREPARE answer names). What differs between transports is a hook: how a client names itself at PREPARE and
 * READY, whether it connects before READY (RC: both ends connect; TCP: the server dials the client's agent), how it
 * writes a PUT, and what the server's transport counts. Each subclass keeps the cases only its transport has.
 *
 * @param <T> the transport
 */
abstract class SessionEndToEndSuite<T extends Transport> {
    static final PrincipalId ALICE = PrincipalId.fromCanonical("alice:secret");
    static final int COOKIE = 0x0bad_cafe;
    static final int SIZE = 1 << 20;
    static final Duration WAIT = Duration.ofSeconds(10);

    T server;
    T clientTransport;
    BufferPool pool;
    SessionCore core;
    RecordingListener events;
    Arena arena;

    /** Opens {@link #server} and {@link #clientTransport}. */
    abstract void openTransports() throws Exception;

    /** Called once everything is open; a variant changes the device's mode here. */
    void afterStart() {
    }

    /** Audits and closes what {@link #start} opened (each transport audits what it can count). */
    abstract void tearDown() throws Exception;

    @AfterEach
    void stop() throws Exception {
        tearDown();
    }

    @BeforeEach
    void start() throws Exception {
        openTransports();
        pool = BufferPool.create(StagingSettings.defaults(), server, () -> Telemetry.NOOP);
        core = new SessionCore(SessionSettings.builder().allowAddresses(Harness.LOOPBACK).execTimeoutMs(5_000).build(),
                MonotonicClock.system(), RandomSource.secure());
        core.useTransport(server);
        core.useStagingPool(pool);
        events = new RecordingListener();
        core.addTerminalListener(events);
        core.startReaper();
        arena = Arena.ofShared();
        afterStart();
    }

    /** The client: memory registered with its own transport and one channel. */
    abstract class Client implements AutoCloseable {
        final MemorySegment memory = arena.allocate(SIZE, 4096);
        final MemoryRegion region;
        final Channel channel;

        /** Registers {@link #memory} with the client transport and opens the channel. */
        Client() throws Exception {
            region = clientTransport.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            channel = openChannel();
        }

        /** The client's channel (the subclass's way uses only the suite's fields: it runs in the constructor). */
        abstract Channel openChannel() throws Exception;

        /** What the client sends at PREPARE as its endpoint. */
        abstract EndpointInfo preparedEndpoint();

        /** The PREPARE of {@code op} of {@link #SIZE} bytes, into {@code into} for a GET. */
        abstract PrepareRequest prepare(Op op, String target, RemoteRegion into);

        abstract ReadyRequest ready(SessionId id);

        RemoteRegion whole() {
            return new RemoteRegion(region.address(), region.length(), region.rkey());
        }

        /** GET: the receive the server's WRITE_WITH_IMM consumes (its scatter list is not used). */
        CompletableFuture<BatchResult> postReceive(long wrId) {
            return channel.submit(List.of(WorkRequest.recv(wrId)), WAIT);
        }

        @Override
        public void close() {
            channel.close();
            region.close();
        }
    }

    abstract Client newClient() throws Exception;

    /** What a GET's PREPARE answer holds on this transport. */
    abstract void assertGetPrepareAnswer(PrepareResponse prep);

    /** Before a GET's READY: RC connects the client's queue pair to the server's; TCP's server dials the client. */
    abstract void connectBeforeGetReady(Client client, PrepareResponse prep) throws Exception;

    /** After a GET's READY answered BUSY: what the client and the server's transport show. */
    abstract void assertBusyKeptTheChannels(Client client) throws Exception;

    /** A PUT's data phase: READY and the client's write, as this transport's client does it; READY's answer. */
    abstract SessionResult<ReadyResponse> writePut(Client client, PrepareResponse prep) throws Exception;

    /** What a PUT's staging view shows on this transport, besides its bytes. */
    abstract void assertPutView(SessionBuffer view, PrepareResponse prep);

    /** Every channel the session core opened on the server transport was closed. */
    abstract void awaitServerChannelsClosed() throws InterruptedException;

    static byte[] randomBytes(long seed) {
        byte[] b = new byte[SIZE];
        new Random(seed).nextBytes(b);
        return b;
    }

    static Completion only(CompletableFuture<BatchResult> batch) throws Exception {
        BatchResult r = batch.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertFalse(r.timedOut(), r.toString());
        assertEquals(1, r.completions().size(), r.toString());
        return r.completions().get(0);
    }

    void assertStagingAndChannelsReturned() throws InterruptedException {
        Harness.await("staging returned", () -> pool.stats().borrowed() == 0);
        assertEquals(0, core.liveSessions());
        assertEquals(new LimitAccounting.Usage(0, 0, 0), core.usage());
        awaitServerChannelsClosed();
    }

    /** GET up to READY: PREPARE with the client's region, the object staged and committed. */
    PrepareResponse stagedGet(Client client, String target, RemoteRegion into, byte[] object) {
        PrepareResponse prep = core.prepare(client.prepare(Op.GET, target, into)).orElseThrow();
        SessionId id = prep.sessionId();
        assertGetPrepareAnswer(prep);
        SessionBuffer lease = core.borrowStaging(id).orElseThrow();
        MemorySegment.copy(MemorySegment.ofArray(object), 0, lease.buffer(), 0, SIZE);
        assertEquals(RcStatus.OK, core.finishStaging(id, lease.handle(), true, SIZE, "\"e1\"", ""));
        assertEquals(RcStatus.OK, core.finishPrepare(id, true));
        return prep;
    }

    void assertReceivedObject(Client client, CompletableFuture<BatchResult> arrival, long wrId, byte[] object)
            throws Exception {
        Completion c = only(arrival);
        assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
        assertEquals(wrId, c.wrId());
        assertEquals(WcOpcode.RECV_RDMA_WITH_IMM, c.opcode());
        assertTrue(c.hasImmediate());
        assertEquals(COOKIE, c.immediate());
        assertEquals(SIZE, c.byteLength());
        assertArrayEquals(object, client.memory.toArray(ValueLayout.JAVA_BYTE));
    }

    PrepareResponse preparedPut(Client client, String target) {
        PrepareResponse prep = core.prepare(client.prepare(Op.PUT, target, null)).orElseThrow();
        assertEquals(SIZE, prep.stagingRegion().length());
        assertEquals(RcStatus.OK, core.finishPrepare(prep.sessionId(), true));
        return prep;
    }

    void finishVerifiedPut(PrepareResponse prep, byte[] object) throws InterruptedException {
        SessionBuffer view = core.getPutData(prep.sessionId()).orElseThrow();
        assertArrayEquals(object, view.buffer().asSlice(0, SIZE).toArray(ValueLayout.JAVA_BYTE));
        assertPutView(view, prep);
        assertEquals(RcStatus.OK, core.finishPut(prep.sessionId(), view.handle(), true, "\"e2\"", ""));
        TerminalEvent e = events.only(prep.sessionId());
        assertEquals(TerminalReason.COMPLETED, e.reason());
        assertEquals(Optional.of(ReadyOutcome.OK), e.lastOutcome());
        assertEquals(SIZE, e.bytes());
        assertStagingAndChannelsReturned();
    }

    // ---- the cases every transport runs ------------------------------------------------------------------------

    @Test
    void getWritesTheStagedObjectIntoClientMemoryWithTheCookie() throws Exception {
        try (Client client = newClient()) {
            byte[] object = randomBytes(1);
            PrepareResponse prep = stagedGet(client, "/bucket/big", client.whole(), object);
            SessionId id = prep.sessionId();

            CompletableFuture<BatchResult> arrival = client.postReceive(5);
            connectBeforeGetReady(client, prep);
            ReadyResponse r = core.readyTransfer(client.ready(id)).orElseThrow();
            assertEquals(ReadyOutcome.OK, r.outcome());
            assertEquals(SIZE, r.bytesTransferred());
            assertEquals(COOKIE, r.cookieEcho());
            assertEquals("\"e1\"", r.etag());
            assertReceivedObject(client, arrival, 5, object);

            assertEquals(RcStatus.OK, core.finishFinal(id));
            TerminalEvent e = events.only(id);
            assertEquals(TerminalReason.COMPLETED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.OK), e.lastOutcome());
            assertEquals(SIZE, e.bytes());
            assertStagingAndChannelsReturned();
        }
    }

    /**
     * READY to a client that posted no receive is BUSY and keeps the session, its channel reset, not replaced; the
     * client resets its own channel, posts the receive, connects to the server endpoint PREPARE returned (which the
     * reset kept valid) and READY again moves the object.
     */
    @Test
    void aBusyGetIsRetriedAgainstTheServerEndpointPrepareReturned() throws Exception {
        try (Client client = newClient()) {
            byte[] object = randomBytes(3);
            PrepareResponse prep = stagedGet(client, "/bucket/retry", client.whole(), object);
            SessionId id = prep.sessionId();
            long channelId = core.detail(id).orElseThrow().channelId();

            connectBeforeGetReady(client, prep);
            ReadyResponse busy = core.readyTransfer(client.ready(id)).orElseThrow();
            assertEquals(ReadyOutcome.BUSY, busy.outcome());
            SessionDetail d = core.detail(id).orElseThrow();
            assertEquals(SessionState.PREPARED, d.state());
            assertTrue(d.published());
            assertFalse(d.reapPending());
            assertEquals(ReadyOutcome.BUSY, d.lastOutcome());
            assertEquals(channelId, d.channelId(), "the session's channel was reset, not replaced");
            assertEquals(0, events.count(id));
            assertBusyKeptTheChannels(client);

            client.channel.reset();
            assertEquals(ChannelState.INIT, client.channel.state());
            CompletableFuture<BatchResult> arrival = client.postReceive(8);
            client.channel.connect(prep.serverEndpoint());
            assertEquals(prep.serverEndpoint(), client.channel.remoteEndpoint());
            ReadyResponse ok = core.readyTransfer(client.ready(id)).orElseThrow();
            assertEquals(ReadyOutcome.OK, ok.outcome());
            assertEquals(SIZE, ok.bytesTransferred());
            assertReceivedObject(client, arrival, 8, object);

            assertEquals(RcStatus.OK, core.finishFinal(id));
            TerminalEvent e = events.only(id);
            assertEquals(TerminalReason.COMPLETED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.OK), e.lastOutcome());
            assertStagingAndChannelsReturned();
        }
    }

    @Test
    void putReceivesTheClientsWriteWithImmIntoStaging() throws Exception {
        try (Client client = newClient()) {
            byte[] object = randomBytes(2);
            MemorySegment.copy(MemorySegment.ofArray(object), 0, client.memory, 0, SIZE);
            PrepareResponse prep = preparedPut(client, "/bucket/up");

            ReadyResponse r = writePut(client, prep).orElseThrow();
            assertEquals(ReadyOutcome.OK, r.outcome());
            assertEquals(SIZE, r.bytesTransferred());
            finishVerifiedPut(prep, object);
        }
    }
}
