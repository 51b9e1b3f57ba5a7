package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.SessionState;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.WorkRequest;

/**
 * hipObject's client names its GET memory only at READY (its PREPARE token has rkey, address and length 0) and may
 * use cookie 0: both are served. The grant stays one slice for one session (the session's size from the start
 * named, nothing past it), and a READY naming memory outside what PREPARE declared is refused with the session
 * preserved and nothing moved.
 */
class ReadyRegionTest {

    private static final int SIZE = 8192;
    /** The client's memory is larger than the session: the bytes past the session's size must stay untouched. */
    private static final int MEMORY = 4 * SIZE;
    private static final byte UNTOUCHED = 0x55;

    private static Harness harness() {
        return new Harness(Harness.settings().controlPlaneOnly(false).build());
    }

    /** PREPAREs a GET of random bytes (cookie {@code cookie}, the client region {@code declared}) and stages it. */
    private static PrepareResponse stagedGet(Harness h, Harness.Client c, int cookie, RemoteRegion declared, byte[] object) {
        PrepareResponse p = h.core.prepare(new PrepareRequest(Harness.ALICE, Op.GET, Harness.TARGET, 0, SIZE, Harness.PSN,
                cookie, c.preparedEndpoint(), declared)).orElseThrow();
        SessionBuffer staged = h.core.borrowStaging(p.sessionId()).orElseThrow();
        MemorySegment.copy(MemorySegment.ofArray(object), 0, staged.buffer(), 0, SIZE);
        assertEquals(RcStatus.OK, h.core.finishStaging(p.sessionId(), staged.handle(), true, SIZE, "\"e\"", ""));
        assertEquals(RcStatus.OK, h.core.finishPrepare(p.sessionId(), true));
        return p;
    }

    private static byte[] object(long seed) {
        byte[] b = new byte[SIZE];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] bytes(MemorySegment m, long from, int n) {
        return m.asSlice(from, n).toArray(ValueLayout.JAVA_BYTE);
    }

    private static void ready(Harness h, Harness.Client c, PrepareResponse p, int cookie, RemoteRegion region)
            throws Exception {
        CompletableFuture<BatchResult> arrival = c.channel.submit(List.of(WorkRequest.recv(5)), Duration.ofSeconds(10));
        SessionResult<org.objrdma.api.session.ReadyResponse> r = h.core.readyTransfer(
                new ReadyRequest(Harness.ALICE, p.sessionId(), cookie, c.channel.id(), region));
        assertEquals(ReadyOutcome.OK, r.orElseThrow().outcome());
        assertEquals(SIZE, r.orElseThrow().bytesTransferred());
        assertEquals(1, arrival.get(10, TimeUnit.SECONDS).completions().size());
        assertEquals(RcStatus.OK, h.core.finishFinal(p.sessionId()));
    }

    @Test
    void aGetWhoseMemoryTravelsOnlyInReadyWithCookieZeroMovesOneSlice() throws Exception {
        try (Harness h = harness(); Harness.Client c = h.new Client(MEMORY)) {
            c.memory.fill(UNTOUCHED);
            byte[] object = object(1);
            PrepareResponse p = stagedGet(h, c, 0, null, object);
            // READY names where its MR starts (one page in) and a length far beyond the session
            long start = c.region.address() + 4096;
            ready(h, c, p, 0, new RemoteRegion(start, Integer.MAX_VALUE, c.region.rkey()));
            assertArrayEquals(object, bytes(c.memory, 4096, SIZE));
            byte[] before = new byte[4096];
            Arrays.fill(before, UNTOUCHED);
            assertArrayEquals(before, bytes(c.memory, 0, 4096), "nothing before the start");
            byte[] after = new byte[MEMORY - 4096 - SIZE];
            Arrays.fill(after, UNTOUCHED);
            assertArrayEquals(after, bytes(c.memory, 4096 + SIZE, after.length), "nothing past the session's size");
            Harness.await("session reaped", () -> h.core.liveSessions() == 0);
        }
    }

    @Test
    void aReadyNamingMemoryOutsideWhatPrepareDeclaredIsRefusedAndTheSessionKept() throws Exception {
        try (Harness h = harness(); Harness.Client c = h.new Client(MEMORY)) {
            c.memory.fill(UNTOUCHED);
            byte[] object = object(2);
            // PREPARE declared the first 2 sessions' worth of the MR
            RemoteRegion declared = new RemoteRegion(c.region.address(), 2L * SIZE, c.region.rkey());
            PrepareResponse p = stagedGet(h, c, Harness.COOKIE, declared, object);
            RemoteRegion[] outside = {
                new RemoteRegion(c.region.address() + SIZE + 1, SIZE, c.region.rkey()), // its end past the declared
                new RemoteRegion(c.region.address() - 4096, SIZE, c.region.rkey()),     // before the declared
                new RemoteRegion(c.region.address(), SIZE, c.region.rkey() ^ 0x100),    // another key
                new RemoteRegion(c.region.address(), SIZE - 1, c.region.rkey()),        // shorter than the session
            };
            for (RemoteRegion r : outside) {
                SessionResult<?> refused = h.core.readyTransfer(new ReadyRequest(Harness.ALICE, p.sessionId(),
                        Harness.COOKIE, c.channel.id(), r));
                assertFalse(refused.isOk(), r.toString());
                assertEquals(RcStatus.ARG, refused.status(), r.toString());
                assertEquals(SessionState.PREPARED, h.core.detail(p.sessionId()).orElseThrow().state(), "kept");
            }
            byte[] untouched = new byte[MEMORY];
            Arrays.fill(untouched, UNTOUCHED);
            assertArrayEquals(untouched, bytes(c.memory, 0, MEMORY), "nothing moved");
            // inside the declared region: served, at the start READY named
            ready(h, c, p, Harness.COOKIE, new RemoteRegion(c.region.address() + SIZE, SIZE, c.region.rkey()));
            assertArrayEquals(object, bytes(c.memory, SIZE, SIZE));
        }
    }

    @Test
    void aGetWithNoMemoryNamedAnywhereIsRefusedAndKept() throws Exception {
        try (Harness h = harness(); Harness.Client c = h.new Client(MEMORY)) {
            PrepareResponse p = stagedGet(h, c, 7, null, object(3));
            SessionResult<?> refused = h.core.readyTransfer(new ReadyRequest(Harness.ALICE, p.sessionId(), 7,
                    c.channel.id(), null));
            assertEquals(RcStatus.ARG, refused.status());
            assertEquals(SessionState.PREPARED, h.core.detail(p.sessionId()).orElseThrow().state());
            ready(h, c, p, 7, new RemoteRegion(c.region.address(), SIZE, c.region.rkey()));
        }
    }
}
