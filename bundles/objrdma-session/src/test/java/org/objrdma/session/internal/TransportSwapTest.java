package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionSnapshot;
import org.objrdma.api.session.TerminalReason;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.staging.internal.BufferPool;
import org.objrdma.staging.internal.StagingSettings;
import org.objrdma.testsupport.FakeClock;
import org.objrdma.testsupport.FakeTransport;

/**
 * A better transport appearing is not a loss: sessions already open finish on the old one, new ones go to
 * the new one with staging on the same transport as their channel (the real staging pool, whatever it
 * prefers at that moment), and the snapshot reports the staging memory really held.
 */
class TransportSwapTest {
    private static final int SIZE = 4096;

    @Test
    void aSessionOnTheOldTransportFinishesOnItAfterABetterOneAppears() throws Exception {
        try (Harness h = new Harness(); Harness.Client client = h.client(SIZE)) {
            PrepareResponse prep = h.core.prepare(client.prepareRequest(Op.GET, SIZE)).orElseThrow();
            SessionId id = prep.sessionId();
            SessionBuffer lease = h.core.borrowStaging(id).orElseThrow();
            lease.buffer().fill((byte) 0x5a);
            assertEquals(RcStatus.OK, h.core.finishStaging(id, lease.handle(), true, SIZE, "\"e\"", ""));
            assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));

            FakeTransport better = new FakeTransport("better");
            FakeStagingPool betterPool = new FakeStagingPool(better, 1 << 20);
            h.core.useTransport(better); // what the component does on a greedy replacement, and nothing more
            h.core.useStagingPool(betterPool);

            client.postReceive();
            assertEquals(ReadyOutcome.OK, h.core.readyTransfer(client.readyRequest(id)).orElseThrow().outcome(),
                    "the old transport still carries its session");
            assertEquals((byte) 0x5a, client.memory.get(ValueLayout.JAVA_BYTE, SIZE - 1));
            assertEquals(RcStatus.OK, h.core.finishFinal(id));
            assertEquals(TerminalReason.COMPLETED, h.events.only(id).reason());
            assertEquals(Optional.of(ReadyOutcome.OK), h.events.only(id).lastOutcome());
            assertEquals(0, better.openChannels());
            h.assertQuiescent();
            betterPool.close();
        }
    }

    @Test
    void prepareBorrowsStagingOnItsOwnTransportWhateverThePoolPrefers() throws Exception {
        FakeTransport old = new FakeTransport("old");
        FakeTransport better = new FakeTransport("better");
        BufferPool pool = BufferPool.create(StagingSettings.defaults(), old, () -> Telemetry.NOOP);
        SessionCore core = new SessionCore(Harness.settings().build(), FakeClock.atMillis(1_000_000)::millis, RandomSource.secure());
        try {
            core.useStagingPool(pool);
            // the session manager heard of the better transport first; the pool still prefers the old one
            core.useTransport(better);
            PrepareResponse onBetter = core.prepare(new org.objrdma.api.session.PrepareRequest(Harness.ALICE, Op.GET,
                    Harness.TARGET, 0, 100, Harness.PSN, Harness.COOKIE, null, null)).orElseThrow();
            assertEquals(1, better.openChannels());
            assertEquals(1, pool.stats().borrowed());
            // and the other way round: the pool moved on, a session core still choosing the old one
            pool.useTransport(better);
            core.useTransport(old);
            SessionId onOld = core.prepare(new org.objrdma.api.session.PrepareRequest(Harness.ALICE, Op.GET,
                    Harness.TARGET, 0, 100, Harness.PSN, Harness.COOKIE, null, null)).orElseThrow().sessionId();
            assertEquals(1, old.openChannels());

            // the snapshot reports the buffer held (the 4 KiB class), not the 100 bytes asked for
            List<SessionSnapshot> snap = core.snapshot();
            assertEquals(2, snap.size());
            for (SessionSnapshot s : snap) {
                assertEquals(4096, s.stagingBytes(), s.toString());
            }
            assertEquals(RcStatus.OK, core.cancel(onBetter.sessionId(), Harness.ALICE));
            assertEquals(RcStatus.OK, core.cancel(onOld, Harness.ALICE));
            assertEquals(0, pool.stats().borrowed());
        } finally {
            core.shutdown(Duration.ofMillis(200));
            pool.close();
        }
    }

    @Test
    void onlyTheOldTransportsRemovalEndsItsSessionsAndThePoolKeepsItsLeaseUntilThen() throws Exception {
        FakeTransport old = new FakeTransport("old");
        FakeTransport better = new FakeTransport("better");
        BufferPool pool = BufferPool.create(StagingSettings.defaults(), old, () -> Telemetry.NOOP);
        SessionCore core = new SessionCore(Harness.settings().build(), FakeClock.atMillis(1_000_000)::millis, RandomSource.secure());
        RecordingListener events = new RecordingListener();
        core.addTerminalListener(events);
        try {
            core.useStagingPool(pool);
            core.useTransport(old);
            SessionId onOld = core.prepare(new org.objrdma.api.session.PrepareRequest(Harness.ALICE, Op.GET,
                    Harness.TARGET, 0, SIZE, Harness.PSN, Harness.COOKIE, null, null)).orElseThrow().sessionId();
            pool.useTransport(better);
            core.useTransport(better);
            assertEquals(0, events.count(onOld));
            assertEquals(1, pool.stats().borrowed(), "the lease on the old transport stays valid");
            SessionBuffer lease = core.borrowStaging(onOld).orElseThrow();
            lease.buffer().set(ValueLayout.JAVA_BYTE, 0, (byte) 1); // still usable memory

            pool.transportGone(old);
            assertEquals(1, core.transportGone(old));
            assertEquals(0, events.count(onOld), "the staging lease out pins it until it is returned");
            assertEquals(RcStatus.OK, core.finishStaging(onOld, lease.handle(), true, SIZE, "", ""));
            assertEquals(TerminalReason.TRANSPORT_LOST, events.only(onOld).reason());
            assertEquals(0, pool.stats().borrowed());
            assertEquals(0, old.openChannels());
        } finally {
            core.shutdown(Duration.ofMillis(200));
            pool.close();
        }
    }
}
