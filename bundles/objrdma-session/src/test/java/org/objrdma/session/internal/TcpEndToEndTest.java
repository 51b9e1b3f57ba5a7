package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
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
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.ChannelState;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * {@link SessionEndToEndSuite} through the real TCP transport: the client side is a second TCP transport with its
 * own memory agent. A TCP client does not connect before a GET's READY (the server dials its agent); a PUT's
 * client connects once READY has claimed the session and writes once. Beside the suite: the opaque base of a PUT's
 * PREPARE answer bounds forged addresses, a wrong immediate, READY to a client without a receive, and the
 * transport going away.
 */
class TcpEndToEndTest extends SessionEndToEndSuite<TcpTransport> {

    @Override
    void openTransports() throws Exception {
        server = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        clientTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
    }

    @Override
    void tearDown() {
        ShutdownReport report = core.shutdown(Duration.ofSeconds(2));
        assertTrue(report.clean(), report.toString());
        pool.close();
        clientTransport.close();
        server.close();
        arena.close();
    }

    /** The client: memory registered with its own TCP transport and one channel. */
    private final class TcpClient extends Client {
        TcpClient() throws Exception {
        }

        @Override
        Channel openChannel() throws Exception {
            return clientTransport.openChannel(ChannelOptions.DEFAULT);
        }

        /** What the client sends at PREPARE: its agent and key; READY names the channel. */
        @Override
        EndpointInfo preparedEndpoint() {
            EndpointInfo.Tcp mine = (EndpointInfo.Tcp) channel.localEndpoint();
            return new EndpointInfo.Tcp(mine.address(), 0, mine.key());
        }

        @Override
        PrepareRequest prepare(Op op, String target, RemoteRegion into) {
            return new PrepareRequest(ALICE, op, target, 0, SIZE, op == Op.GET ? 0x123 : 0x456, COOKIE,
                    preparedEndpoint(), into);
        }

        @Override
        ReadyRequest ready(SessionId id) {
            return new ReadyRequest(ALICE, id, COOKIE, channel.id(), null);
        }
    }

    @Override
    Client newClient() throws Exception {
        return new TcpClient();
    }

    @Override
    void assertGetPrepareAnswer(PrepareResponse prep) {
        assertEquals(0, prep.stagingRegion().address(), "a GET's PREPARE answer names no server address");
        assertEquals(PrepareCommand.NO_REMOTE_KEY, prep.stagingRegion().rkey());
    }

    @Override
    void connectBeforeGetReady(Client client, PrepareResponse prep) {
        // the server dials the client's agent at READY
    }

    @Override
    void assertBusyKeptTheChannels(Client client) {
        assertEquals(ChannelState.ERROR, client.channel.state(), "the client's channel refused the write");
        assertEquals(1, server.channelCount());
    }

    @Override
    SessionResult<ReadyResponse> writePut(Client client, PrepareResponse prep) throws Exception {
        return putWith(client, prep, COOKIE, SIZE, true);
    }

    @Override
    void assertPutView(SessionBuffer view, PrepareResponse prep) {
        assertEquals(SIZE, view.buffer().byteSize());
        assertNotEquals(view.buffer().address(), prep.stagingRegion().address(),
                "the PUT's PREPARE answer is an opaque base, not the staging buffer's address");
    }

    @Override
    void awaitServerChannelsClosed() throws InterruptedException {
        Harness.await("server channels closed", () -> server.channelCount() == 0);
    }

    /** READY on another thread; the client writes once READY has claimed the session (its receive is posted). */
    private SessionResult<ReadyResponse> putWith(Client client, PrepareResponse prep, int immediate, int length,
                                                 boolean expectDelivered) throws Exception {
        CompletableFuture<SessionResult<ReadyResponse>> ready =
                CompletableFuture.supplyAsync(() -> core.readyTransfer(client.ready(prep.sessionId())));
        Harness.await("READY claimed the session", () -> core.detail(prep.sessionId())
                .map(d -> d.state() != SessionState.PREPARED).orElse(true));
        client.channel.connect(prep.serverEndpoint());
        WorkRequest write = WorkRequest.writeWithImm(6, new ScatterGatherEntry(client.region, 0, length),
                prep.stagingRegion().address(), prep.stagingRegion().rkey(), immediate);
        Completion c = client.channel.submit(List.of(write), Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS)
                .completions().get(0);
        if (expectDelivered) {
            assertEquals(WcStatus.SUCCESS, c.status(), c.toString());
        } // else the server may tear the session (and the connection) down before the client hears back
        return ready.get(10, TimeUnit.SECONDS);
    }

    /** The opaque base bounds the client's writes exactly as the real address did: one byte out is refused. */
    @Test
    void aForgedAddressOutsideThePutSessionsSliceIsRefused() throws Exception {
        long[][] forged = {{-1, 2}, {SIZE, 1}, {-4096, 4096}};
        for (long[] f : forged) {
            try (Client client = newClient()) {
                PrepareResponse prep = core.prepare(new PrepareRequest(ALICE, Op.PUT, "/bucket/forged", 0, SIZE,
                        0x456, COOKIE, client.preparedEndpoint(), null)).orElseThrow();
                assertEquals(RcStatus.OK, core.finishPrepare(prep.sessionId(), true));
                client.channel.connect(prep.serverEndpoint());
                WorkRequest write = WorkRequest.writeWithImm(7, new ScatterGatherEntry(client.region, 0, (int) f[1]),
                        prep.stagingRegion().address() + f[0], prep.stagingRegion().rkey(), COOKIE);
                Completion c = client.channel.submit(List.of(write), Duration.ofSeconds(10)).get(10, TimeUnit.SECONDS)
                        .completions().get(0);
                assertEquals(WcStatus.REM_ACCESS_ERR, c.status(), "base" + f[0] + " +" + f[1] + ": " + c);
                assertEquals(RcStatus.OK, core.cancel(prep.sessionId(), ALICE));
            }
        }
        assertStagingAndChannelsReturned();
    }

    @Test
    void putWithAnotherImmediateIsRefused() throws Exception {
        try (Client client = newClient()) {
            PrepareResponse prep = core.prepare(new PrepareRequest(ALICE, Op.PUT, "/bucket/up", 0, SIZE, 0x456,
                    COOKIE, client.preparedEndpoint(), null)).orElseThrow();
            assertEquals(RcStatus.OK, core.finishPrepare(prep.sessionId(), true));
            assertEquals(RcStatus.WIRE, putWith(client, prep, COOKIE + 1, SIZE, false).status());
            TerminalEvent e = events.only(prep.sessionId());
            assertEquals(TerminalReason.FAILED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.VERIFY_FAIL), e.lastOutcome());
            assertStagingAndChannelsReturned();
        }
    }

    @Test
    void getToAClientThatPostedNoReceiveIsBusy() throws Exception {
        try (Client client = newClient()) {
            PrepareResponse prep = core.prepare(new PrepareRequest(ALICE, Op.GET, "/bucket/big", 0, SIZE, 0x123,
                    COOKIE, client.preparedEndpoint(), client.whole())).orElseThrow();
            SessionId id = prep.sessionId();
            SessionBuffer lease = core.borrowStaging(id).orElseThrow();
            assertEquals(RcStatus.OK, core.finishStaging(id, lease.handle(), true, SIZE, "", ""));
            assertEquals(RcStatus.OK, core.finishPrepare(id, true));
            long channel = core.detail(id).orElseThrow().channelId();
            ReadyResponse r = core.readyTransfer(client.ready(id)).orElseThrow();
            assertEquals(ReadyOutcome.BUSY, r.outcome(), "the TCP agent reports receiver-not-ready after rnr.wait.ms");
            SessionDetail d = core.detail(id).orElseThrow();
            assertEquals(SessionState.PREPARED, d.state());
            assertTrue(d.published());
            assertEquals(channel, d.channelId(), "the session's channel was reset, not replaced");
            assertEquals(1, server.channelCount());
            assertEquals(RcStatus.OK, core.cancel(id, ALICE));
            TerminalEvent e = events.only(id);
            assertEquals(TerminalReason.CANCELLED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.BUSY), e.lastOutcome());
            assertStagingAndChannelsReturned();
        }
    }

    @Test
    void losingTheTransportEndsItsSessionsOnceAndReturnsStaging() throws Exception {
        try (Client client = newClient()) {
            SessionId a = core.prepare(new PrepareRequest(ALICE, Op.PUT, "/b/a", 0, 4096, 1, COOKIE,
                    client.preparedEndpoint(), null)).orElseThrow().sessionId();
            SessionId b = core.prepare(new PrepareRequest(ALICE, Op.GET, "/b/b", 0, 4096, 1, COOKIE,
                    client.preparedEndpoint(), client.whole())).orElseThrow().sessionId();
            assertEquals(RcStatus.OK, core.finishPrepare(a, true));
            assertEquals(2, core.transportGone(server));
            for (SessionId id : List.of(a, b)) {
                TerminalEvent e = events.only(id);
                assertEquals(TerminalReason.TRANSPORT_LOST, e.reason());
                assertEquals(Optional.of(ReadyOutcome.WIRE_FAIL), e.lastOutcome());
            }
            assertEquals(RcStatus.INTERNAL, core.prepare(new PrepareRequest(ALICE, Op.GET, "/b/c", 0, 4096, 1, COOKIE,
                    client.preparedEndpoint(), client.whole())).status(), "no transport bound now");
            assertStagingAndChannelsReturned();
        }
    }
}
