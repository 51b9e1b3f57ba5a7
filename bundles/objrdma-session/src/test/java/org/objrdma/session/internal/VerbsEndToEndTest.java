package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
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
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WcOpcode;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.verbs.internal.transport.VerbsTransport;
import org.objrdma.testsupport.CountingTelemetry;

/**
 * {@link SessionEndToEndSuite} (GET and PUT end to end) through the real verbs transport on the software verbs device
 * and the real staging pool, and the cases only RC has. The server side is a session core on one verbs transport (its own device context and protection
 * domain); the client side is a second verbs transport in the same process, doing what an RDMA client of
 * hipobj-rc-v2 does: register memory, open a queue pair, send its port address and PSN at PREPARE and its
 * QPN at READY, connect its queue pair to the server endpoint PREPARE returned (RC needs both ends
 * connected), post a receive (GET) or WRITE_WITH_IMM into the staging region (PUT).
 *
 * <p>{@link VerbsEndToEndDeferredTest} runs the same with the device completing work on its own thread.
 */
class VerbsEndToEndTest extends SessionEndToEndSuite<VerbsTransport> {
    private SoftVerbsDevice device;
    private CountingTelemetry serverCounts;
    private CountingTelemetry clientCounts;

    /** Called once both transports are open; the deferred variant switches the device's mode here. */
    void configureDevice() {
    }

    /** Called before the transports close; undoes {@link #configureDevice()}. */
    void restoreDevice() {
    }

    @Override
    void openTransports() throws Exception {
        device = SoftVerbsDevice.load();
        serverCounts = new CountingTelemetry();
        clientCounts = new CountingTelemetry();
        server = device.openTransport(() -> serverCounts);
        clientTransport = device.openTransport(() -> clientCounts);
    }

    @Override
    void afterStart() {
        configureDevice();
    }

    @Override
    void tearDown() throws Exception {
        if (arena == null) {
            // start() failed part way (e.g. no software device): release what it opened, report its error only
            closeQuietly(pool, clientTransport, server, device);
            return;
        }
        try {
            ShutdownReport report = core.shutdown(Duration.ofSeconds(2));
            assertTrue(report.clean(), report.toString());
            events.bySession.forEach((id, list) -> assertEquals(1, list.size(), "terminal events of " + id + ": " + list));
            assertEquals(0, pool.stats().borrowed(), "staging buffers still lent");
            assertEquals(0, pool.shutdown(), "leases still out when the pool closed");
            // everything the session core and the pool opened on the server transport was given back by its
            // owner, and every client test closed its own: transport close has only the PD and context left
            Harness.await("server regions deregistered", serverCounts::transportBalanced);
            assertTrue(clientCounts.transportBalanced(), "client channels/regions left open: " + clientCounts.snapshot());
        } finally {
            restoreDevice();
            clientTransport.close();
            server.close();
            device.close();
            arena.close();
        }
        assertFalse(server.isAvailable());
        assertFalse(clientTransport.isAvailable());
    }

    private static void closeQuietly(AutoCloseable... resources) {
        for (AutoCloseable r : resources) {
            if (r != null) {
                try {
                    r.close();
                } catch (Exception ignored) {
                    // the failure of start() is the one worth reporting
                }
            }
        }
    }

    /** The client: memory registered with its own verbs transport and one RC queue pair. */
    private final class VerbsClient extends Client {
        VerbsClient() throws Exception {
        }

        @Override
        Channel openChannel() throws TransportException {
            return openChannelWithUsablePsn();
        }

        EndpointInfo.Verbs local() {
            return (EndpointInfo.Verbs) channel.localEndpoint();
        }

        /** What PREPARE carries: the port's address; the QPN comes with READY (and the PSN as clientPsn). */
        @Override
        EndpointInfo preparedEndpoint() {
            EndpointInfo.Verbs mine = local();
            return new EndpointInfo.Verbs(0, mine.psn(), mine.gid(), mine.lid(), mine.port(), mine.mtu());
        }

        @Override
        PrepareRequest prepare(Op op, String target, RemoteRegion into) {
            return new PrepareRequest(ALICE, op, target, 0, SIZE, local().psn(), COOKIE, preparedEndpoint(), into);
        }

        /** objrdma's client: PREPARE names the queue pair too (its token carries the QPN), READY repeats it. */
        PrepareRequest prepareNamingQueuePair(Op op, String target) {
            return new PrepareRequest(ALICE, op, target, 0, SIZE, local().psn(), COOKIE, local(), null);
        }

        @Override
        ReadyRequest ready(SessionId id) {
            return new ReadyRequest(ALICE, id, COOKIE, local().qpn(), null);
        }
    }

    /** PREPARE refuses PSN 0 and the transport draws 24 random bits: one in 2^24 queue pairs is not usable. */
    private Channel openChannelWithUsablePsn() throws TransportException {
        while (true) {
            Channel c = clientTransport.openChannel(ChannelOptions.DEFAULT);
            if (((EndpointInfo.Verbs) c.localEndpoint()).psn() != 0) {
                return c;
            }
            c.close();
        }
    }

    @Override
    Client newClient() throws Exception {
        return new VerbsClient();
    }

    @Override
    void assertGetPrepareAnswer(PrepareResponse prep) {
        assertEquals(SIZE, prep.stagingRegion().length());
        assertEquals("verbs:softrc0", server.name());
        assertTrue(prep.serverEndpoint() instanceof EndpointInfo.Verbs);
    }

    /** As the C core's client does before READY: receive posted, queue pair connected to the server's. */
    @Override
    void connectBeforeGetReady(Client client, PrepareResponse prep) throws TransportException {
        client.channel.connect(prep.serverEndpoint());
    }

    /**
     * Connected but no receive posted: the server's WRITE_WITH_IMM found the receive queue empty. The server's
     * queue pair went through RESET and starts again from its initial PSN, so the client re-arms its own too (a NIC
     * would otherwise expect the next PSN of the old connection), then connects to the endpoint it already has: a
     * replaced server queue pair would not name this client and the retried write would fail again.
     */
    @Override
    void assertBusyKeptTheChannels(Client client) {
        assertEquals(1, serverCounts.value(Counter.TRANSPORT_CHANNELS_OPENED), "no second queue pair opened");
        assertEquals(0, serverCounts.value(Counter.TRANSPORT_CHANNELS_CLOSED));
    }

    @Override
    SessionResult<ReadyResponse> writePut(Client client, PrepareResponse prep) throws Exception {
        return putWith(client, prep);
    }

    @Override
    void assertPutView(SessionBuffer view, PrepareResponse prep) {
        // the bytes are all a verbs PUT's view shows
    }

    @Override
    void awaitServerChannelsClosed() throws InterruptedException {
        Harness.await("server channels closed", () -> serverCounts.value(Counter.TRANSPORT_CHANNELS_OPENED)
                == serverCounts.value(Counter.TRANSPORT_CHANNELS_CLOSED));
    }

    // ---- GET ------------------------------------------------------------------------------------------------

    @Test
    void aBadClientRkeyFailsTheGetAndReturnsStaging() throws Exception {
        try (VerbsClient client = new VerbsClient()) {
            // a key the client's device no longer knows: a region registered and deregistered again
            MemoryRegion gone = clientTransport.register(arena.allocate(SIZE, 4096),
                    EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            int staleRkey = new RemoteRegion(gone.address(), gone.length(), gone.rkey()).rkey();
            gone.close();
            RemoteRegion badKey = new RemoteRegion(client.memory.address(), SIZE, staleRkey);
            PrepareResponse prep = stagedGet(client, "/bucket/denied", badKey, randomBytes(4));
            SessionId id = prep.sessionId();

            CompletableFuture<BatchResult> arrival = client.postReceive(9);
            client.channel.connect(prep.serverEndpoint());
            assertEquals(RcStatus.WIRE, core.readyTransfer(client.ready(id)).status());
            TerminalEvent e = events.only(id);
            assertEquals(TerminalReason.FAILED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.WIRE_FAIL), e.lastOutcome());
            assertEquals(1, serverCounts.value(Counter.TRANSPORT_REMOTE_ACCESS_DENIED));
            assertStagingAndChannelsReturned();

            assertEquals(-1, client.memory.mismatch(arena.allocate(SIZE)), "a refused write placed no byte");
            // the receive was never consumed: it ends with the client's queue pair (a NIC may flush it sooner)
            client.channel.close();
            assertNotEquals(WcStatus.SUCCESS, only(arrival).status());
        }
    }


    // ---- PUT ------------------------------------------------------------------------------------------------

    /**
     * READY on another thread; once it has claimed the session the client connects and writes. The server
     * posts its receive and then connects its queue pair, so an early write can find it not yet in RTR: the
     * device answers RETRY_EXC_ERR (RNR_RETRY_EXC_ERR if a receive were missing), the client's queue pair is
     * in ERR, and the client resets it, connects again and retries, as a real client does.
     *
     * @return READY's answer
     */
    private SessionResult<ReadyResponse> putWith(Client client, PrepareResponse prep) throws Exception {
        SessionId id = prep.sessionId();
        CompletableFuture<SessionResult<ReadyResponse>> ready = new CompletableFuture<>();
        Thread.ofPlatform().name("ready-" + id.hex()).daemon().start(() -> {
            try {
                ready.complete(core.readyTransfer(client.ready(id)));
            } catch (Throwable t) {
                ready.completeExceptionally(t);
            }
        });
        Harness.await("READY claimed the session", () -> core.detail(id)
                .map(d -> d.state() != SessionState.PREPARED).orElse(true));
        WorkRequest write = WorkRequest.writeWithImm(6, new ScatterGatherEntry(client.region, 0, SIZE),
                prep.stagingRegion().address(), prep.stagingRegion().rkey(), COOKIE);
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            client.channel.connect(prep.serverEndpoint());
            Completion c = only(client.channel.submit(List.of(write), WAIT));
            if (c.isSuccess()) {
                assertEquals(WcOpcode.RDMA_WRITE, c.opcode());
                break;
            }
            assertTrue(c.status() == WcStatus.RETRY_EXC_ERR || c.status() == WcStatus.RNR_RETRY_EXC_ERR, c.toString());
            assertFalse(ready.isDone(), "READY ended while the client still retried: " + ready.getNow(null));
            assertTrue(System.nanoTime() < deadline, "the server queue pair never became ready: " + c);
            client.channel.reset();
            Thread.sleep(1); // a client backs off; here it also leaves the CPU to READY's thread
        }
        return ready.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }


    /**
     * The verbs transport going away (its service unregistered: the liveTransport unbind) while two PUTs wait in
     * READY for clients that never write: each session's queue pair is closed, which flushes its armed receive
     * (the device flushes on ERR; what it does not, close flushes itself — no peer is waited for), each READY
     * answers WIRE / WIRE_FAIL, each session ends exactly once as TRANSPORT_LOST and its staging comes back
     * (the after-each audit: a clean shutdown, one event per session, nothing lent, every resource closed).
     */
    @Test
    void theTransportGoingMidPutEndsEachSessionOnceAndReturnsItsStaging() throws Exception {
        try (VerbsClient first = new VerbsClient(); VerbsClient second = new VerbsClient()) {
            List<PrepareResponse> preps = List.of(preparedPut(first, "/bucket/lost-1"),
                    preparedPut(second, "/bucket/lost-2"));
            List<VerbsClient> clients = List.of(first, second);
            List<CompletableFuture<SessionResult<ReadyResponse>>> readies = new java.util.ArrayList<>();
            for (int i = 0; i < preps.size(); i++) {
                SessionId id = preps.get(i).sessionId();
                VerbsClient c = clients.get(i);
                readies.add(CompletableFuture.supplyAsync(() -> core.readyTransfer(c.ready(id))));
                Harness.await("READY claimed " + id, () -> core.detail(id)
                        .map(d -> d.state() != SessionState.PREPARED).orElse(true));
            }
            assertEquals(2, core.transportGone(server));
            for (int i = 0; i < preps.size(); i++) {
                SessionResult<ReadyResponse> r = readies.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS);
                assertEquals(RcStatus.WIRE, r.status(), r.toString());
                assertEquals(ReadyOutcome.WIRE_FAIL, r.failureDetail().orElseThrow().outcome());
                TerminalEvent e = events.only(preps.get(i).sessionId());
                assertEquals(TerminalReason.TRANSPORT_LOST, e.reason());
                assertEquals(Optional.of(ReadyOutcome.WIRE_FAIL), e.lastOutcome());
            }
            assertStagingAndChannelsReturned();
        }
    }


    @Test
    void aPutWriteBeforeReadyFailsAndTheClientRetriesAfterAReset() throws Exception {
        try (VerbsClient client = new VerbsClient()) {
            byte[] object = randomBytes(5);
            MemorySegment.copy(MemorySegment.ofArray(object), 0, client.memory, 0, SIZE);
            PrepareResponse prep = preparedPut(client, "/bucket/early");
            SessionDetail before = core.detail(prep.sessionId()).orElseThrow();

            // no READY yet: the server's queue pair is still in INIT, so the write finds no connected peer
            client.channel.connect(prep.serverEndpoint());
            Completion early = only(client.channel.submit(List.of(WorkRequest.writeWithImm(3,
                    new ScatterGatherEntry(client.region, 0, SIZE), prep.stagingRegion().address(),
                    prep.stagingRegion().rkey(), COOKIE)), WAIT));
            assertEquals(WcStatus.RETRY_EXC_ERR, early.status(), early.toString());
            assertEquals(ChannelState.ERROR, client.channel.state());
            assertEquals(before, core.detail(prep.sessionId()).orElseThrow(), "the session saw nothing");

            client.channel.reset();
            assertEquals(ChannelState.INIT, client.channel.state());
            ReadyResponse r = putWith(client, prep).orElseThrow();
            assertEquals(ReadyOutcome.OK, r.outcome());
            finishVerifiedPut(prep, object);
        }
    }

    // ---- a PUT's staging grant is bound to the session's queue pair (issue 12) --------------------------------

    /** A queue pair of the server's protection domain, connected to one of the client transport's: an intruder. */
    private final class Intruder implements AutoCloseable {
        final Channel serverSide;
        final Channel remote;
        final MemoryRegion garbage;

        Intruder() throws TransportException {
            serverSide = server.openChannel(ChannelOptions.DEFAULT);
            remote = clientTransport.openChannel(ChannelOptions.DEFAULT);
            MemorySegment bytes = arena.allocate(SIZE, 4096);
            bytes.fill((byte) 0xEE);
            garbage = clientTransport.register(bytes, EnumSet.of(Access.LOCAL_WRITE));
            serverSide.connect(remote.localEndpoint());
            remote.connect(serverSide.localEndpoint());
        }

        /** Writes garbage over the slice it learned; returns the completion status. */
        WcStatus writeInto(RemoteRegion learned) throws Exception {
            Completion c = only(remote.submit(List.of(WorkRequest.write(77, new ScatterGatherEntry(garbage, 0, SIZE),
                    learned.address(), learned.rkey())), WAIT));
            return c.status();
        }

        @Override
        public void close() {
            remote.close();
            serverSide.close();
            garbage.close();
        }
    }

    @Test
    void aPutsStagingSliceRefusesEveryQueuePairButTheSessionsOwn() throws Exception {
        try (VerbsClient client = new VerbsClient()) {
            byte[] object = randomBytes(6);
            MemorySegment.copy(MemorySegment.ofArray(object), 0, client.memory, 0, SIZE);
            PrepareResponse prep = core.prepare(client.prepareNamingQueuePair(Op.PUT, "/bucket/bound")).orElseThrow();
            assertEquals(RcStatus.OK, core.finishPrepare(prep.sessionId(), true));

            // another queue pair of the same protection domain learned the rkey PREPARE answered: refused
            try (Intruder intruder = new Intruder()) {
                assertEquals(WcStatus.REM_ACCESS_ERR, intruder.writeInto(prep.stagingRegion()));
            }

            // the session's client: its queue pair is connected to the server's since PREPARE, the receive
            // armed, so its first write lands (no retry), before READY even
            client.channel.connect(prep.serverEndpoint());
            Completion written = only(client.channel.submit(List.of(WorkRequest.writeWithImm(6,
                    new ScatterGatherEntry(client.region, 0, SIZE), prep.stagingRegion().address(),
                    prep.stagingRegion().rkey(), COOKIE)), WAIT));
            assertEquals(WcStatus.SUCCESS, written.status(), written.toString());
            ReadyResponse r = core.readyTransfer(client.ready(prep.sessionId())).orElseThrow();
            assertEquals(ReadyOutcome.OK, r.outcome());
            assertEquals(SIZE, r.bytesTransferred());

            // after the data phase the grant lives until teardown: still nobody else's
            try (Intruder intruder = new Intruder()) {
                assertEquals(WcStatus.REM_ACCESS_ERR, intruder.writeInto(prep.stagingRegion()));
            }
            finishVerifiedPut(prep, object); // the staging bytes are exactly the client's: nothing else landed
        }
    }

    @Test
    void aReadyNamingAnotherQueuePairThanPrepareIsArgAndKeepsTheSession() throws Exception {
        try (VerbsClient client = new VerbsClient()) {
            byte[] object = randomBytes(7);
            MemorySegment.copy(MemorySegment.ofArray(object), 0, client.memory, 0, SIZE);
            PrepareResponse prep = core.prepare(client.prepareNamingQueuePair(Op.PUT, "/bucket/other-qp")).orElseThrow();
            assertEquals(RcStatus.OK, core.finishPrepare(prep.sessionId(), true));
            long other = client.local().qpn() == 1 ? 2 : client.local().qpn() - 1;
            assertEquals(RcStatus.ARG, core.readyTransfer(new ReadyRequest(ALICE, prep.sessionId(), COOKIE, other, null))
                    .status(), "the server's queue pair is connected to the one PREPARE named");
            assertEquals(SessionState.PREPARED, core.detail(prep.sessionId()).orElseThrow().state());

            client.channel.connect(prep.serverEndpoint());
            assertEquals(WcStatus.SUCCESS, only(client.channel.submit(List.of(WorkRequest.writeWithImm(6,
                    new ScatterGatherEntry(client.region, 0, SIZE), prep.stagingRegion().address(),
                    prep.stagingRegion().rkey(), COOKIE)), WAIT)).status());
            assertEquals(ReadyOutcome.OK, core.readyTransfer(client.ready(prep.sessionId())).orElseThrow().outcome());
            finishVerifiedPut(prep, object);
        }
    }
}
