package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.LeaseHandle;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.testsupport.FakeTransport;

/**
 * When the transport a session uses goes away, the session ends with a wire failure, its staging
 * returns, and the terminal notification fires exactly once; sessions on another transport are
 * untouched, and new sessions use the next transport. Also: bounded shutdown and what it reports.
 */
class TransportLossTest {

    @Test
    void everySessionOnTheLostTransportEndsOnceWithAWireFailure() throws Exception {
        try (Harness h = new Harness(); Harness.Client client = h.client(64)) {
            SessionId prepared = h.prepare(Op.GET, 64).sessionId();
            SessionId published = h.prepare(Op.PUT, 64).sessionId();
            assertEquals(RcStatus.OK, h.core.finishPrepare(published, true));
            SessionId completing = h.prepare(Op.PUT, 64).sessionId();
            assertEquals(RcStatus.OK, h.core.finishPrepare(completing, true));
            assertEquals(ReadyOutcome.OK, h.core.readyTransfer(h.ready(completing)).orElseThrow().outcome());
            SessionId leased = h.prepare(Op.GET, 64).sessionId();
            LeaseHandle lease = h.core.borrowStaging(leased).orElseThrow().handle();
            // a GET inside its data phase
            SessionId running = h.core.prepare(client.prepareRequest(Op.GET, 64)).orElseThrow().sessionId();
            LeaseHandle l = h.core.borrowStaging(running).orElseThrow().handle();
            assertEquals(RcStatus.OK, h.core.finishStaging(running, l, true, 64, "", ""));
            assertEquals(RcStatus.OK, h.core.finishPrepare(running, true));
            h.transport.hold = new CompletableFuture<>(); // never opened: only the channel close ends it
            CompletableFuture<SessionResult<ReadyResponse>> ready =
                    CompletableFuture.supplyAsync(() -> h.core.readyTransfer(client.readyRequest(running)));
            long serverChannel = h.core.detail(running).orElseThrow().channelId();
            Harness.await("READY connected and waiting for its completion",
                    () -> h.transport.channelState(serverChannel) == org.objrdma.api.transport.ChannelState.CONNECTED);

            FakeTransport next = new FakeTransport("loop-2");
            h.core.useTransport(next); // greedy replacement: the better transport is bound first
            assertEquals(5, h.core.transportGone(h.transport));

            SessionResult<ReadyResponse> flushed = ready.get(5, TimeUnit.SECONDS);
            assertEquals(RcStatus.WIRE, flushed.status(), "the close flushed the data phase");
            assertEquals(ReadyOutcome.WIRE_FAIL, flushed.failureDetail().orElseThrow().outcome());
            for (SessionId id : List.of(prepared, published, running)) {
                TerminalEvent e = h.events.only(id);
                assertEquals(TerminalReason.TRANSPORT_LOST, e.reason());
                assertEquals(Optional.of(ReadyOutcome.WIRE_FAIL), e.lastOutcome());
            }
            // what the gateway holds keeps the session until it gives it back (or the lease deadline)
            assertEquals(0, h.events.count(completing));
            assertEquals(0, h.events.count(leased));
            assertEquals(RcStatus.OK, h.core.finishFinal(completing));
            assertEquals(RcStatus.OK, h.core.finishStaging(leased, lease, true, 64, "", ""));
            // its data phase had succeeded before the transport went: the terminal event says so
            assertEquals(TerminalReason.COMPLETED, h.events.only(completing).reason());
            assertEquals(Optional.of(ReadyOutcome.OK), h.events.only(completing).lastOutcome());
            assertEquals(TerminalReason.TRANSPORT_LOST, h.events.only(leased).reason());
            assertEquals(0, h.transport.openChannels() - 1, "only the client's channel is left on the old transport");
            h.assertQuiescent();
            assertEquals(0, h.core.transportGone(h.transport), "a second loss finds nothing");

            // new sessions use the next transport
            FakeStagingPool nextPool = new FakeStagingPool(next, 1 << 20);
            h.core.useStagingPool(nextPool);
            SessionId fresh = h.prepare(Op.GET, 64).sessionId();
            assertEquals(1, next.openChannels());
            assertEquals(RcStatus.OK, h.core.cancel(fresh, Harness.ALICE));
            assertEquals(0, nextPool.outstanding.get());
            nextPool.close();
        }
    }

    @Test
    void sessionsOnOtherTransportsAreUntouched() {
        try (Harness h = new Harness()) {
            SessionId onFirst = h.prepare(Op.GET, 64).sessionId();
            FakeTransport other = new FakeTransport("other");
            FakeStagingPool otherPool = new FakeStagingPool(other, 1 << 20);
            h.core.useTransport(other);
            h.core.useStagingPool(otherPool);
            SessionId onOther = h.prepare(Op.GET, 64).sessionId();
            assertEquals(1, h.core.transportGone(other));
            assertEquals(TerminalReason.TRANSPORT_LOST, h.events.only(onOther).reason());
            assertTrue(h.core.detail(onFirst).isPresent());
            assertEquals(0, otherPool.outstanding.get());
            otherPool.close();
        }
    }

    @Test
    void losingTheStagingPoolEndsItsSessions() {
        try (Harness h = new Harness()) {
            SessionId id = h.prepare(Op.GET, 64).sessionId();
            assertEquals(1, h.core.stagingPoolGone(h.pool));
            assertEquals(TerminalReason.TRANSPORT_LOST, h.events.only(id).reason());
            h.assertQuiescent();
        }
    }

    @Test
    void shutdownDrainsWhatIsReturnedInTimeAndReportsWhatItAbandons() throws Exception {
        try (Harness h = new Harness()) {
            SessionId idle = h.prepare(Op.GET, 64).sessionId();
            SessionId leased = h.prepare(Op.GET, 64).sessionId();
            LeaseHandle lease = h.core.borrowStaging(leased).orElseThrow().handle();
            SessionId returnsInTime = h.prepare(Op.GET, 64).sessionId();
            LeaseHandle soon = h.core.borrowStaging(returnsInTime).orElseThrow().handle();
            CompletableFuture<RcStatus> giveBack = CompletableFuture.supplyAsync(() -> {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return h.core.finishStaging(returnsInTime, soon, false, 0, "", "");
            });
            ShutdownReport report = h.core.shutdown(Duration.ofMillis(400));
            assertEquals(RcStatus.OK, giveBack.get(5, TimeUnit.SECONDS));
            assertEquals(3, report.liveAtStart());
            assertEquals(2, report.drained());
            assertEquals(1, report.abandoned().size());
            assertTrue(report.abandoned().get(0).startsWith(leased.hex()), report.abandoned().toString());
            assertTrue(report.abandoned().get(0).contains("staging lease"), report.abandoned().toString());
            for (SessionId id : List.of(idle, leased, returnsInTime)) {
                assertEquals(TerminalReason.SHUTDOWN, h.events.only(id).reason(), "the first reason recorded wins");
            }
            assertEquals(0, h.core.liveSessions());
            assertEquals(new LimitAccounting.Usage(0, 0, 0), h.core.usage());
            assertEquals(1, h.pool.outstanding.get(), "the abandoned lease stays with its holder");
            assertEquals(RcStatus.STALE, h.core.finishStaging(leased, lease, true, 64, "", ""));
            assertEquals(RcStatus.SHUTDOWN, h.core.prepare(new PrepareRequest(Harness.ALICE, Op.GET, Harness.TARGET, 0, 64,
                    Harness.PSN, Harness.COOKIE, null, null)).status(), "shutting down is its own status, not INTERNAL");
            assertTrue(h.core.shutdown(Duration.ofMillis(10)).clean(), "idempotent");
        }
    }
}
