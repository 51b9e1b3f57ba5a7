package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.LeaseHandle;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.transport.RemoteRegion;

/**
 * What the legality table cannot show: argument errors, and the checks READY makes before it looks at a
 * session (shutdown, then slots), in the C core's order. Every refusal leaves everything as it was.
 */
class CheckOrderTest {
    private static final SessionId UNKNOWN = new SessionId("0123456789abcdef0123456789abcdef");

    @Test
    void nullArgumentsAreArgAndChangeNothing() {
        try (Harness h = new Harness()) {
            SessionId id = h.prepare(Op.GET, 64).sessionId();
            Optional<SessionDetail> before = h.core.detail(id);
            assertEquals(RcStatus.ARG, h.core.prepare(null).status());
            assertEquals(RcStatus.ARG, h.core.finishPrepare(null, true));
            assertEquals(RcStatus.ARG, h.core.borrowStaging(null).status());
            assertEquals(RcStatus.ARG, h.core.finishStaging(null, LeaseHandle.NONE, true, 64, "", ""));
            assertEquals(RcStatus.ARG, h.core.sessionInfo(null, Harness.ALICE).status());
            assertEquals(RcStatus.ARG, h.core.sessionInfo(id, null).status());
            assertEquals(RcStatus.ARG, h.core.readyTransfer(null).status());
            assertEquals(RcStatus.ARG, h.core.getPutData(null).status());
            assertEquals(RcStatus.ARG, h.core.finishPut(null, LeaseHandle.NONE, true, "", ""));
            assertEquals(RcStatus.ARG, h.core.finishFinal(null));
            assertEquals(RcStatus.ARG, h.core.cancel(null, Harness.ALICE));
            assertEquals(RcStatus.ARG, h.core.cancel(id, null));
            assertEquals(RcStatus.STALE, h.core.finishStaging(id, null, true, 64, "", ""));
            assertEquals(RcStatus.STALE, h.core.finishPut(id, null, true, "", ""));
            assertEquals(before, h.core.detail(id));
            assertEquals(1, h.core.liveSessions());
        }
    }

    @Test
    void prepareRejectsMalformedRequestsWithArgAndChargesNothing() {
        try (Harness h = new Harness()) {
            String t = Harness.TARGET;
            int psn = Harness.PSN;
            int cookie = Harness.COOKIE;
            PrepareRequest[] bad = {
                new PrepareRequest(Harness.ALICE, Op.GET, t, 0, 0, psn, cookie, null, null),
                new PrepareRequest(Harness.ALICE, Op.GET, t, 0, -1, psn, cookie, null, null),
                new PrepareRequest(Harness.ALICE, Op.GET, t, 0, 0x8000_0000L, psn, cookie, null, null),
                new PrepareRequest(Harness.ALICE, Op.GET, t, -1, 64, psn, cookie, null, null),
                new PrepareRequest(Harness.ALICE, Op.GET, t, Long.MAX_VALUE - 10, 64, psn, cookie, null, null),
                new PrepareRequest(Harness.ALICE, Op.GET, "", 0, 64, psn, cookie, null, null),
                new PrepareRequest(Harness.ALICE, Op.GET, t, 0, 64, 0, cookie, null, null),
                new PrepareRequest(Harness.ALICE, Op.GET, t, 0, 64, 0x100_0000, cookie, null, null),
                // cookie 0 is legal (hipObject's client may send it): ReadyRegionTest
                new PrepareRequest(Harness.ALICE, Op.GET, t, 0, 64, psn, cookie, null, new RemoteRegion(4096, 63, 7)),
                // a size above the pool's largest buffer is no longer malformed: a GET moves in chunks, a PUT gets
                // a dedicated window (RcBigObjectTest in objrdma-s3)
            };
            for (PrepareRequest r : bad) {
                assertEquals(RcStatus.ARG, h.core.prepare(r).status(), r.toString());
            }
            h.assertQuiescent();
            assertEquals(0, h.pool.borrows.get());
            assertEquals(0, h.transport.opened.get());
        }
    }

    @Test
    void readyRefusesWhileShuttingDownBeforeAnythingElse() {
        try (Harness h = new Harness()) {
            h.core.shutdown(Duration.ofMillis(10));
            assertEquals(RcStatus.SHUTDOWN, h.core.readyTransfer(new ReadyRequest(Harness.BOB, UNKNOWN, 1, 1, null)).status());
            assertEquals(RcStatus.SHUTDOWN, h.core.prepare(new PrepareRequest(Harness.ALICE, Op.GET, Harness.TARGET, 0, 64,
                    Harness.PSN, Harness.COOKIE, null, null)).status());
        }
    }

    @Test
    void readyChecksItsSlotBeforeTheSessionAndKeepsTheSession() {
        try (Harness h = new Harness(Harness.settings().maxReadySlots(2).build())) {
            SessionId id = h.prepare(Op.PUT, 64).sessionId();
            assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));
            assertEquals(RcStatus.OK, h.core.tryAcquireReadySlot());
            assertEquals(RcStatus.OK, h.core.tryAcquireReadySlot());
            Optional<SessionDetail> before = h.core.detail(id);
            assertEquals(RcStatus.LIMIT, h.core.readyTransfer(new ReadyRequest(Harness.ALICE, UNKNOWN, 1, 1, null)).status(),
                    "LIMIT comes before NO_SESSION");
            assertEquals(RcStatus.LIMIT, h.core.readyTransfer(h.ready(id)).status());
            assertEquals(before, h.core.detail(id));
            h.core.releaseReadySlot();
            assertEquals(RcStatus.NO_SESSION, h.core.readyTransfer(new ReadyRequest(Harness.ALICE, UNKNOWN, 1, 1, null)).status());
            assertEquals(RcStatus.OK, h.core.readyTransfer(h.ready(id)).status());
            assertEquals(1, h.core.readySlotsInUse(), "READY gives its own slot back");
            h.core.releaseReadySlot();
            h.core.releaseReadySlot(); // one too many: reported and ignored
            assertEquals(0, h.core.readySlotsInUse());
            assertEquals(RcStatus.OK, h.core.finishFinal(id));
        }
    }

    @Test
    void stageSlotsCountAndRefuseWhenExhausted() {
        try (Harness h = new Harness(Harness.settings().maxStageSlots(1).build())) {
            assertEquals(RcStatus.OK, h.core.tryAcquireStageSlot());
            assertEquals(RcStatus.LIMIT, h.core.tryAcquireStageSlot());
            h.core.releaseStageSlot();
            assertEquals(RcStatus.OK, h.core.tryAcquireStageSlot());
            h.core.releaseStageSlot();
            assertEquals(0, h.core.stageSlotsInUse());
        }
    }

    @Test
    void readyArgumentsAgainstTheSessionAreCheckedAfterOwnerAndCookieAndPreserve() throws Exception {
        try (Harness h = new Harness()) {
            Harness.Client client = h.client(64);
            PrepareRequest get = new PrepareRequest(Harness.ALICE, Op.GET, Harness.TARGET, 0, 64, Harness.PSN,
                    Harness.COOKIE, client.preparedEndpoint(), null); // no client region yet: READY must name it
            SessionId id = h.core.prepare(get).orElseThrow().sessionId();
            LeaseHandle lease = h.core.borrowStaging(id).orElseThrow().handle();
            assertEquals(RcStatus.OK, h.core.finishStaging(id, lease, true, 64, "", ""));
            assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));
            Optional<SessionDetail> before = h.core.detail(id);
            // wrong cookie outranks bad arguments
            assertEquals(RcStatus.SESSION, h.core.readyTransfer(new ReadyRequest(Harness.ALICE, id, 5, 0, null)).status());
            // channel 0 does not name the client's channel
            assertEquals(RcStatus.ARG, h.core.readyTransfer(new ReadyRequest(Harness.ALICE, id, Harness.COOKIE, 0,
                    new RemoteRegion(client.region.address(), client.region.length(), client.region.rkey()))).status());
            // a GET with no client region anywhere
            assertEquals(RcStatus.ARG, h.core.readyTransfer(new ReadyRequest(Harness.ALICE, id, Harness.COOKIE,
                    client.channel.id(), null)).status());
            // a region shorter than the object
            assertEquals(RcStatus.ARG, h.core.readyTransfer(new ReadyRequest(Harness.ALICE, id, Harness.COOKIE,
                    client.channel.id(), new RemoteRegion(client.region.address(), client.region.length(), client.region.rkey()).slice(0, 63))).status());
            assertEquals(before, h.core.detail(id));
            assertEquals(RcStatus.OK, h.core.cancel(id, Harness.ALICE));
            assertTrue(h.core.detail(id).isEmpty());
            client.close();
        }
    }

    @Test
    void prepareChecksLimitBeforeTargetLengthAndRollsBackTrunc() {
        try (Harness h = new Harness(Harness.settings().maxSessions(1).maxUserSessions(1).build())) {
            String longTarget = "/b/" + "k".repeat(PrepareCommand.MAX_TARGET_CHARS);
            PrepareRequest tooLong = new PrepareRequest(Harness.ALICE, Op.GET, longTarget, 0, 64, Harness.PSN,
                    Harness.COOKIE, null, null);
            assertEquals(RcStatus.TRUNC, h.core.prepare(tooLong).status());
            h.assertQuiescent();
            SessionId id = h.prepare(Op.GET, 64).sessionId();
            assertEquals(RcStatus.LIMIT, h.core.prepare(tooLong).status(), "LIMIT is checked before the target length");
            assertEquals(RcStatus.OK, h.core.cancel(id, Harness.ALICE));
            String longest = "/" + "k".repeat(PrepareCommand.MAX_TARGET_CHARS - 1);
            SessionId fits = h.core.prepare(new PrepareRequest(Harness.ALICE, Op.GET, longest, 0, 64, Harness.PSN,
                    Harness.COOKIE, null, null)).orElseThrow().sessionId();
            assertEquals(longest, h.core.sessionInfo(fits, Harness.ALICE).orElseThrow().target());
        }
    }

    @Test
    void finishStagingShortAndTruncAbortTheSession() {
        try (Harness h = new Harness()) {
            SessionId a = h.prepare(Op.GET, 64).sessionId();
            LeaseHandle la = h.core.borrowStaging(a).orElseThrow().handle();
            assertEquals(RcStatus.SHORT, h.core.finishStaging(a, la, true, 63, "", ""));
            assertTrue(h.core.detail(a).isEmpty());
            SessionId b = h.prepare(Op.GET, 64).sessionId();
            LeaseHandle lb = h.core.borrowStaging(b).orElseThrow().handle();
            assertEquals(RcStatus.TRUNC, h.core.finishStaging(b, lb, true, 64, "e".repeat(128), ""));
            assertTrue(h.core.detail(b).isEmpty());
            SessionId c = h.prepare(Op.GET, 64).sessionId();
            LeaseHandle lc = h.core.borrowStaging(c).orElseThrow().handle();
            assertEquals(RcStatus.OK, h.core.finishStaging(c, lc, true, 64, "e".repeat(127), "v".repeat(127)));
            assertEquals(RcStatus.STALE, h.core.finishStaging(c, lc, true, 64, "", ""), "consume-once");
            assertEquals(RcStatus.OK, h.core.finishPrepare(c, true));
            assertEquals("e".repeat(127), h.core.readyTransfer(h.ready(c)).orElseThrow().etag());
            assertEquals(RcStatus.OK, h.core.finishFinal(c));
            assertEquals(org.objrdma.api.session.TerminalReason.ABORTED, h.events.only(a).reason());
            assertEquals(org.objrdma.api.session.TerminalReason.ABORTED, h.events.only(b).reason());
            assertEquals(org.objrdma.api.session.TerminalReason.COMPLETED, h.events.only(c).reason());
            h.assertQuiescent();
        }
    }

    @Test
    void aHandleOfOneSessionNeverConsumesAnothersLease() {
        try (Harness h = new Harness()) {
            SessionId a = h.prepare(Op.GET, 64).sessionId();
            SessionId b = h.prepare(Op.GET, 64).sessionId();
            LeaseHandle la = h.core.borrowStaging(a).orElseThrow().handle();
            LeaseHandle lb = h.core.borrowStaging(b).orElseThrow().handle();
            assertEquals(la.nonce(), lb.nonce(), "nonces restart per session");
            assertTrue(la.epoch() != lb.epoch(), "epochs differ");
            assertEquals(RcStatus.STALE, h.core.finishStaging(a, lb, true, 64, "", ""));
            assertEquals(RcStatus.OK, h.core.finishStaging(a, la, true, 64, "", ""));
            assertEquals(RcStatus.OK, h.core.finishStaging(b, lb, true, 64, "", ""));
        }
    }
}
