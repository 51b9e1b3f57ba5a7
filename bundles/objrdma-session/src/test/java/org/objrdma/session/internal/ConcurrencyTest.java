package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.LeaseHandle;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.TerminalEvent;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.testsupport.CountingTelemetry;

/**
 * 10 000 sessions live at once, driven by gateway threads through random flows while a chaos thread
 * cancels at random, moves the clock and runs reaper passes, and the real reaper thread runs too. Every
 * session must end exactly once, and every lease, charge and channel must come back.
 */
class ConcurrencyTest {
    private static final int SESSIONS = 10_000;
    private static final int GATEWAY_THREADS = 4;

    private enum Flow { GET, PUT, ABORT, ABANDON, HOLD_LEASE, HOLD_VIEW, CANCEL_MIDWAY, DATA_GET }

    @Test
    void tenThousandSessionsEndExactlyOnceUnderRandomCancelsAndExpiries() throws Exception {
        SessionSettings settings = Harness.settings().reaperPeriodMs(5).build();
        try (Harness h = new Harness(settings)) {
            CountingTelemetry telemetry = new CountingTelemetry();
            h.core.useTelemetry(telemetry);
            Harness.Client client = h.client(256);
            long seed = System.nanoTime();
            SplittableRandom random = new SplittableRandom(seed);

            List<SessionId> ids = Collections.synchronizedList(new ArrayList<>());
            Map<SessionId, Flow> flows = new ConcurrentHashMap<>();
            for (int i = 0; i < SESSIONS; i++) {
                Flow flow = Flow.values()[random.nextInt(Flow.values().length)];
                Op op = flow == Flow.PUT || flow == Flow.HOLD_VIEW ? Op.PUT : Op.GET;
                PrepareRequest r = flow == Flow.DATA_GET ? client.prepareRequest(Op.GET, 256)
                        : new PrepareRequest(Harness.ALICE, op, Harness.TARGET, 0, 256, Harness.PSN, Harness.COOKIE, null, null);
                SessionId id = h.core.prepare(r).orElseThrow().sessionId();
                ids.add(id);
                flows.put(id, flow);
            }
            assertEquals(SESSIONS, h.core.liveSessions(), "all live at once");
            h.core.startReaper();

            AtomicBoolean gatewaysDone = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(GATEWAY_THREADS + 1);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> gateways = new ArrayList<>();
            for (int t = 0; t < GATEWAY_THREADS; t++) {
                int slice = t;
                long threadSeed = random.nextLong();
                gateways.add(pool.submit(() -> {
                    start.await();
                    SplittableRandom r = new SplittableRandom(threadSeed);
                    for (int i = slice; i < SESSIONS; i += GATEWAY_THREADS) {
                        SessionId id = ids.get(i);
                        drive(h, client, id, flows.get(id), r);
                    }
                    return null;
                }));
            }
            Future<?> chaos = pool.submit(() -> {
                start.await();
                SplittableRandom r = new SplittableRandom(seed ^ 0x5eed);
                while (!gatewaysDone.get()) {
                    SessionId victim = ids.get(r.nextInt(SESSIONS));
                    switch (r.nextInt(4)) {
                        case 0 -> assertTrue(Set.of(RcStatus.OK, RcStatus.NO_SESSION).contains(h.core.cancel(victim, Harness.ALICE)));
                        case 1 -> assertTrue(Set.of(RcStatus.SESSION, RcStatus.NO_SESSION).contains(h.core.cancel(victim, Harness.BOB)));
                        case 2 -> h.clock.advance(r.nextInt(3));
                        default -> h.core.reapPass();
                    }
                    if (r.nextInt(500) == 0) {
                        h.core.snapshot();
                    }
                }
                return null;
            });
            start.countDown();
            for (Future<?> g : gateways) {
                g.get(60, TimeUnit.SECONDS);
            }
            gatewaysDone.set(true);
            chaos.get(10, TimeUnit.SECONDS);
            pool.shutdown();

            // whatever a gateway still holds is revoked at the lease deadline
            h.clock.advance(10 * settings.leaseTimeoutMs());
            h.core.reapPass();
            Harness.await("every session notified", () -> h.events.total.get() >= SESSIONS);

            assertEquals(SESSIONS, h.events.bySession.size(), "seed " + seed);
            for (SessionId id : ids) {
                assertEquals(1, h.events.count(id), "seed " + seed + ": " + h.events.bySession.get(id));
            }
            assertEquals(SESSIONS, h.events.total.get());
            h.assertQuiescent();
            assertEquals(SESSIONS, telemetry.value(Counter.SESSIONS_PREPARED));
            assertEquals(SESSIONS, telemetry.value(Counter.SESSIONS_ENDED));
            assertEquals(h.transport.opened.get() - 1, h.transport.closed.get(), "every session channel closed");
            assertEquals(0, h.core.readySlotsInUse());
            long expired = h.events.bySession.values().stream().map(l -> l.get(0))
                    .filter(e -> e.reason() == org.objrdma.api.session.TerminalReason.EXPIRED).count();
            assertEquals(expired, telemetry.value(Counter.SESSIONS_EXPIRED));
            assertTrue(expired > 0, "the flows include abandoned sessions");
            Map<String, Long> mix = new java.util.TreeMap<>();
            h.events.bySession.values().forEach(l -> mix.merge(l.get(0).reason() + "/"
                    + l.get(0).lastOutcome().map(Enum::name).orElse("-"), 1L, Long::sum));
            System.out.println("terminal mix (seed " + seed + "): " + mix);
            client.close();
        }
    }

    /** One session, the way a gateway drives it; any step may be refused by a racing cancel or expiry. */
    private static void drive(Harness h, Harness.Client client, SessionId id, Flow flow, SplittableRandom r) {
        SessionCore core = h.core;
        if (flow == Flow.CANCEL_MIDWAY) {
            flow = r.nextBoolean() ? Flow.GET : Flow.PUT;
            if (r.nextBoolean()) {
                core.cancel(id, Harness.ALICE);
            }
        }
        switch (flow) {
            case ABANDON -> { }
            case ABORT -> core.finishPrepare(id, false);
            case HOLD_LEASE -> core.borrowStaging(id);
            case GET, DATA_GET -> {
                SessionResult<SessionBuffer> lease = core.borrowStaging(id);
                if (!lease.isOk()) {
                    return;
                }
                LeaseHandle handle = lease.value().handle();
                if (core.finishStaging(id, handle, true, 256, "etag", "") != RcStatus.OK
                        || core.finishPrepare(id, true) != RcStatus.OK) {
                    return;
                }
                if (flow == Flow.DATA_GET) {
                    client.postReceive();
                }
                SessionResult<ReadyResponse> ready = core.readyTransfer(flow == Flow.DATA_GET
                        ? client.readyRequest(id) : h.ready(id));
                if (ready.isOk() && ready.value().outcome() == ReadyOutcome.OK) {
                    RcStatus fin = core.finishFinal(id);
                    assertTrue(fin == RcStatus.OK || fin == RcStatus.NO_SESSION || fin == RcStatus.STALE, "finishFinal " + fin);
                }
            }
            case PUT, HOLD_VIEW -> {
                if (core.finishPrepare(id, true) != RcStatus.OK) {
                    return;
                }
                SessionResult<ReadyResponse> ready = core.readyTransfer(h.ready(id));
                if (!ready.isOk() || ready.value().outcome() != ReadyOutcome.OK) {
                    return;
                }
                SessionResult<SessionBuffer> view = core.getPutData(id);
                if (!view.isOk()) {
                    core.finishFinal(id);
                } else if (flow == Flow.PUT) {
                    RcStatus put = core.finishPut(id, view.value().handle(), true, "etag", "");
                    assertTrue(put == RcStatus.OK || put == RcStatus.STALE, "finishPut " + put);
                }
            }
            default -> throw new IllegalStateException(flow.toString());
        }
    }

    @Test
    void aListenerThatThrowsDoesNotStopTheOthers() {
        try (Harness h = new Harness()) {
            h.core.addTerminalListener(e -> {
                throw new IllegalStateException("broken listener");
            });
            RecordingListener second = new RecordingListener();
            h.core.addTerminalListener(second);
            SessionId id = h.prepare(Op.GET, 64).sessionId();
            assertEquals(RcStatus.OK, h.core.cancel(id, Harness.ALICE));
            TerminalEvent e = second.only(id);
            assertEquals(id, e.sessionId());
            assertEquals(1, h.events.count(id));
            h.core.removeTerminalListener(second);
            SessionId other = h.prepare(Op.GET, 64).sessionId();
            h.core.cancel(other, Harness.ALICE);
            assertEquals(0, second.count(other));
        }
    }
}
