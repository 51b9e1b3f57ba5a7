package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.staging.StagingStatus;

/**
 * Limits of §3.7, global and per principal: charged at PREPARE, released at teardown, never exceeded,
 * and a refusal (or a failure later in PREPARE) charges nothing.
 */
class LimitsTest {

    private static RcStatus prepare(Harness h, PrincipalId who, int size) {
        return h.core.prepare(new PrepareRequest(who, Op.GET, Harness.TARGET, 0, size, Harness.PSN, Harness.COOKIE,
                null, null)).status();
    }

    private static SessionId prepareOk(Harness h, PrincipalId who, int size) {
        return h.core.prepare(new PrepareRequest(who, Op.GET, Harness.TARGET, 0, size, Harness.PSN, Harness.COOKIE,
                null, null)).orElseThrow().sessionId();
    }

    @Test
    void globalSessionLimit() {
        try (Harness h = new Harness(Harness.settings().maxSessions(3).maxUserSessions(3).build())) {
            List<SessionId> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ids.add(prepareOk(h, i % 2 == 0 ? Harness.ALICE : Harness.BOB, 64));
            }
            LimitAccounting.Usage before = h.core.usage();
            assertEquals(RcStatus.LIMIT, prepare(h, Harness.BOB, 64));
            assertEquals(before, h.core.usage(), "a refusal charges nothing");
            assertEquals(RcStatus.OK, h.core.cancel(ids.get(0), Harness.ALICE));
            assertEquals(RcStatus.OK, prepare(h, Harness.BOB, 64), "released at teardown");
        }
    }

    @Test
    void perPrincipalSessionLimitLeavesOthersAlone() {
        try (Harness h = new Harness(Harness.settings().maxSessions(10).maxUserSessions(2).build())) {
            prepareOk(h, Harness.ALICE, 64);
            prepareOk(h, Harness.ALICE, 64);
            assertEquals(RcStatus.LIMIT, prepare(h, Harness.ALICE, 64));
            assertEquals(RcStatus.OK, prepare(h, Harness.BOB, 64));
            assertArrayEquals(new long[] {2, 2}, h.core.usageOf(Harness.ALICE));
            assertArrayEquals(new long[] {1, 1}, h.core.usageOf(Harness.BOB));
        }
    }

    @Test
    void theDeprecatedStagingByteKeysLimitNothing() {
        // staging bytes have one owner, the staging pool: its byte limits refuse PREPARE in
        // ChunkedGetTest#aLimitRefusalNamesTheLimitButNotThePrincipal and objrdma-s3's ExhaustionTest
        try (Harness h = new Harness(Harness.settings().maxStagingBytes(1000).maxUserStagingBytes(600).build())) {
            prepareOk(h, Harness.ALICE, 600);
            prepareOk(h, Harness.ALICE, 600);
            prepareOk(h, Harness.BOB, 400);
            assertEquals(new LimitAccounting.Usage(3, 3, 2), h.core.usage());
        }
    }

    @Test
    void queuePairLimitsGlobalAndPerPrincipal() {
        try (Harness h = new Harness(Harness.settings().maxQps(2).maxUserQps(1).build())) {
            prepareOk(h, Harness.ALICE, 64);
            assertEquals(RcStatus.LIMIT, prepare(h, Harness.ALICE, 64), "one queue pair per principal");
            prepareOk(h, Harness.BOB, 64);
            assertEquals(RcStatus.LIMIT, prepare(h, PrincipalId.fromCanonical("carol:x"), 64), "two in all");
            assertEquals(2, h.core.usage().qps());
        }
    }

    @Test
    void chargesReturnAtTeardownAndEmptyPrincipalsVanish() {
        try (Harness h = new Harness()) {
            SessionId a = prepareOk(h, Harness.ALICE, 100);
            SessionId b = prepareOk(h, Harness.BOB, 200);
            assertEquals(new LimitAccounting.Usage(2, 2, 2), h.core.usage());
            assertEquals(RcStatus.OK, h.core.finishPrepare(a, false));
            assertEquals(new LimitAccounting.Usage(1, 1, 1), h.core.usage());
            assertEquals(RcStatus.OK, h.core.cancel(b, Harness.BOB));
            h.assertQuiescent();
        }
    }

    @Test
    void failuresLaterInPrepareRollEverythingBack() {
        try (Harness h = new Harness()) {
            h.pool.failWith = StagingStatus.LIMIT;
            assertEquals(RcStatus.LIMIT, prepare(h, Harness.ALICE, 64), "staging pool out of bytes");
            h.pool.failWith = StagingStatus.INVALID_SIZE;
            assertEquals(RcStatus.ARG, prepare(h, Harness.ALICE, 64));
            h.pool.failWith = StagingStatus.REGISTRATION_FAILED;
            assertEquals(RcStatus.INTERNAL, prepare(h, Harness.ALICE, 64));
            h.pool.failWith = null;
            h.transport.failOpen = true;
            assertEquals(RcStatus.LIMIT, prepare(h, Harness.ALICE, 64), "no queue pair left on the device");
            h.transport.failOpen = false;
            h.assertQuiescent();
            assertEquals(0, h.transport.opened.get());
        }
        try (Harness h = new Harness()) {
            SessionCore failing = new SessionCore(Harness.settings().build(), h.clock::millis, bytes -> {
                throw new IllegalStateException("entropy exhausted");
            });
            failing.useTransport(h.transport);
            failing.useStagingPool(h.pool);
            assertEquals(RcStatus.INTERNAL, failing.prepare(new PrepareRequest(Harness.ALICE, Op.GET, Harness.TARGET, 0, 64,
                    Harness.PSN, Harness.COOKIE, null, null)).status());
            assertEquals(new LimitAccounting.Usage(0, 0, 0), failing.usage());
            assertEquals(0, h.pool.outstanding.get());
        }
    }

    @Test
    void aRepeatedSessionIdIsRefusedAndRolledBack() {
        try (Harness h = new Harness()) {
            SessionCore repeating = new SessionCore(Harness.settings().build(), h.clock::millis, bytes -> java.util.Arrays.fill(bytes, (byte) 7));
            repeating.useTransport(h.transport);
            repeating.useStagingPool(h.pool);
            PrepareRequest r = new PrepareRequest(Harness.ALICE, Op.GET, Harness.TARGET, 0, 64, Harness.PSN, Harness.COOKIE,
                    null, null);
            assertEquals(RcStatus.OK, repeating.prepare(r).status());
            assertEquals(RcStatus.INTERNAL, repeating.prepare(r).status());
            assertEquals(new LimitAccounting.Usage(1, 1, 1), repeating.usage());
            assertEquals(1, h.pool.outstanding.get());
            repeating.cancelAll();
            assertEquals(0, h.pool.outstanding.get());
            assertEquals(h.transport.opened.get(), h.transport.closed.get());
        }
    }

    @Test
    void noTransportOrPoolIsInternal() {
        try (Harness h = new Harness()) {
            h.core.transportGone(h.transport);
            assertEquals(RcStatus.INTERNAL, prepare(h, Harness.ALICE, 64));
            h.core.useTransport(h.transport);
            h.core.stagingPoolGone(h.pool);
            assertEquals(RcStatus.INTERNAL, prepare(h, Harness.ALICE, 64));
            h.assertQuiescent();
        }
    }

    @Test
    void devNameSelectsOnlyTheMatchingVerbsTransport() {
        try (Harness h = new Harness(Harness.settings().devName("mlx5_0").build())) {
            assertEquals(RcStatus.INTERNAL, prepare(h, Harness.ALICE, 64), "transport 'loop' is not verbs:mlx5_0");
            h.assertQuiescent();
        }
    }
}
