package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.objrdma.api.session.LeaseHandle;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyOutcome;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.session.SessionState;

/**
 * Every session call in every state, legal and illegal, with the status the check order of the C core
 * (§3.3 of rc-session.md, plus the objrdma tightenings the README lists) must give. Every refused call
 * must leave the session exactly as it was: its full detail is compared before and after.
 */
class LegalityTableTest {

    /** Calls, in column order. */
    enum Call {
        COMMIT, ABORT, BORROW, FINISH_STAGING, FINISH_STAGING_FORGED, INFO, INFO_OTHER, READY, READY_BAD_COOKIE,
        READY_OTHER, GET_PUT_DATA, FINISH_PUT, FINISH_PUT_FORGED, FINISH_FINAL, CANCEL, CANCEL_OTHER
    }

    /**
     * Expected status per state (rows) and call (columns, in {@link Call} order). "ST" = STATE,
     * "SE" = SESSION, "NS" = NO_SESSION, "DB" = DOUBLE, "SL" = STALE.
     */
    private static final String TABLE = """
            #                       COMMIT ABORT BORROW F_STG F_STGX INFO INFOX READY R_COOK R_OTH GPD F_PUT F_PUTX FINAL CANCEL CANCELX
            GET_CREATED             ST     OK    OK     SL    SL     OK   SE    ST    ST     SE    ST  SL    SL     ST    OK     SE
            GET_LEASED              ST     OK    DB     OK    SL     OK   SE    ST    ST     SE    ST  SL    SL     ST    OK     SE
            GET_STAGED              OK     OK    OK     SL    SL     OK   SE    ST    ST     SE    ST  SL    SL     ST    OK     SE
            GET_PUBLISHED           OK     OK    OK     SL    SL     OK   SE    OK    SE     SE    ST  SL    SL     ST    OK     SE
            GET_PUBLISHED_REAPING   SL     OK    DB     OK    SL     OK   SE    SL    SL     SE    ST  SL    SL     ST    OK     SE
            GET_LEASED_REAPING      SL     OK    DB     OK    SL     OK   SE    ST    ST     SE    ST  SL    SL     ST    OK     SE
            PUT_CREATED             OK     OK    OK     SL    SL     OK   SE    ST    ST     SE    ST  SL    SL     ST    OK     SE
            PUT_PUBLISHED           OK     OK    OK     SL    SL     OK   SE    OK    SE     SE    ST  SL    SL     ST    OK     SE
            GET_TRANSFERRING        SL     SL    SL     SL    SL     OK   SE    ST    ST     SE    ST  SL    SL     ST    OK     SE
            GET_COMPLETING          SL     SL    SL     SL    SL     OK   SE    ST    ST     SE    ST  SL    SL     OK    OK     SE
            GET_COMPLETING_REAPING  SL     SL    SL     SL    SL     OK   SE    ST    ST     SE    ST  SL    SL     OK    OK     SE
            PUT_COMPLETING          SL     SL    SL     SL    SL     OK   SE    ST    ST     SE    OK  SL    SL     OK    OK     SE
            PUT_VIEW_OUT            SL     SL    SL     SL    SL     OK   SE    ST    ST     SE    DB  OK    SL     ST    OK     SE
            GONE                    NS     NS    NS     SL    SL     NS   NS    NS    NS     NS    NS  SL    SL     NS    NS     NS
            """;

    private static final ExecutorService READY_THREADS = Executors.newCachedThreadPool();

    @AfterAll
    static void stopThreads() {
        READY_THREADS.shutdownNow();
    }

    /** A session brought into one state, with the handles a caller in that state holds. */
    private record Fixture(SessionId id, LeaseHandle staging, LeaseHandle view, Future<?> runningReady,
                           CompletableFuture<Void> gate) {
    }

    @TestFactory
    Stream<DynamicTest> everyCallInEveryState() {
        Map<String, RcStatus[]> rows = parse();
        List<DynamicTest> tests = new ArrayList<>();
        for (Map.Entry<String, RcStatus[]> row : rows.entrySet()) {
            for (Call call : Call.values()) {
                RcStatus expected = row.getValue()[call.ordinal()];
                tests.add(DynamicTest.dynamicTest(row.getKey() + " × " + call + " → " + expected,
                        () -> runCell(row.getKey(), call, expected)));
            }
        }
        return tests.stream();
    }

    @Test
    void everyRowHasOneStatusPerCall() {
        Map<String, RcStatus[]> rows = parse();
        assertEquals(14, rows.size());
        for (RcStatus[] r : rows.values()) {
            assertEquals(Call.values().length, r.length);
        }
    }

    private void runCell(String state, Call call, RcStatus expected) throws Exception {
        try (Harness h = new Harness()) {
            Fixture f = enter(h, state);
            Optional<SessionDetail> before = h.core.detail(f.id());
            RcStatus actual = invoke(h, f, call);
            Optional<SessionDetail> after = h.core.detail(f.id());
            assertEquals(expected, actual, state + " × " + call);
            if (!actual.isOk()) {
                assertEquals(before, after, "a refused call (" + actual + ") must leave the session untouched");
            }
            finish(h, f);
            assertTrue(h.events.bySession.values().stream().allMatch(list -> list.size() == 1),
                    "every ended session notified exactly once: " + h.events.bySession);
            assertEquals(1, h.events.count(f.id()), "the session under test ended exactly once");
            h.assertQuiescent();
        }
    }

    private static RcStatus invoke(Harness h, Fixture f, Call call) {
        SessionId id = f.id();
        return switch (call) {
            case COMMIT -> h.core.finishPrepare(id, true);
            case ABORT -> h.core.finishPrepare(id, false);
            case BORROW -> h.core.borrowStaging(id).status();
            case FINISH_STAGING -> h.core.finishStaging(id, f.staging(), true, 4096, "etag-1", "v1");
            case FINISH_STAGING_FORGED -> h.core.finishStaging(id, new LeaseHandle(Long.MAX_VALUE, 1), true, 4096, "", "");
            case INFO -> h.core.sessionInfo(id, Harness.ALICE).status();
            case INFO_OTHER -> h.core.sessionInfo(id, Harness.BOB).status();
            case READY -> h.core.readyTransfer(h.ready(id)).status();
            case READY_BAD_COOKIE -> h.core.readyTransfer(new ReadyRequest(Harness.ALICE, id, Harness.COOKIE + 1, 1, null)).status();
            case READY_OTHER -> h.core.readyTransfer(new ReadyRequest(Harness.BOB, id, Harness.COOKIE, 1, null)).status();
            case GET_PUT_DATA -> h.core.getPutData(id).status();
            case FINISH_PUT -> h.core.finishPut(id, f.view(), true, "etag-2", "");
            case FINISH_PUT_FORGED -> h.core.finishPut(id, new LeaseHandle(Long.MAX_VALUE, 1), true, "", "");
            case FINISH_FINAL -> h.core.finishFinal(id);
            case CANCEL -> h.core.cancel(id, Harness.ALICE);
            case CANCEL_OTHER -> h.core.cancel(id, Harness.BOB);
        };
    }

    /** Brings a fresh session into {@code state}. */
    private static Fixture enter(Harness h, String state) throws Exception {
        if (state.equals("GET_TRANSFERRING")) {
            return transferring(h);
        }
        if (state.equals("PUT_COMPLETING") || state.equals("PUT_VIEW_OUT")) {
            // a PUT reaches COMPLETING only when bytes really arrived: a session with a client endpoint
            SessionId put = h.completedPut(4096);
            LeaseHandle view = state.equals("PUT_VIEW_OUT") ? h.core.getPutData(put).orElseThrow().handle()
                    : LeaseHandle.NONE;
            return new Fixture(put, LeaseHandle.NONE, view, null, null);
        }
        Op op = state.startsWith("PUT") ? Op.PUT : Op.GET;
        SessionId id = h.prepare(op, 4096).sessionId();
        LeaseHandle staging = LeaseHandle.NONE;
        LeaseHandle view = LeaseHandle.NONE;
        switch (state) {
            case "GET_CREATED", "PUT_CREATED" -> { }
            case "GET_LEASED" -> staging = borrow(h, id);
            case "GET_LEASED_REAPING" -> {
                staging = borrow(h, id);
                assertEquals(RcStatus.OK, h.core.cancel(id, Harness.ALICE));
            }
            case "GET_STAGED" -> staging = stage(h, id);
            case "GET_PUBLISHED" -> {
                staging = stage(h, id);
                assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));
            }
            case "GET_PUBLISHED_REAPING" -> {
                stage(h, id);
                assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));
                staging = borrow(h, id); // C allows a borrow in any prepared sub-state; it pins the session
                assertEquals(RcStatus.OK, h.core.cancel(id, Harness.ALICE));
            }
            case "PUT_PUBLISHED" -> assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));
            case "GET_COMPLETING", "GET_COMPLETING_REAPING" -> {
                stage(h, id);
                assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));
                assertEquals(ReadyOutcome.OK, h.core.readyTransfer(h.ready(id)).orElseThrow().outcome());
                if (state.endsWith("REAPING")) {
                    assertEquals(RcStatus.OK, h.core.cancel(id, Harness.ALICE));
                }
            }
            case "GONE" -> {
                staging = stage(h, id);
                assertEquals(RcStatus.OK, h.core.cancel(id, Harness.ALICE));
                assertTrue(h.core.detail(id).isEmpty());
            }
            default -> throw new IllegalArgumentException(state);
        }
        return new Fixture(id, staging, view, null, null);
    }

    private static LeaseHandle borrow(Harness h, SessionId id) {
        SessionBuffer lease = h.core.borrowStaging(id).orElseThrow();
        assertEquals(4096, lease.buffer().byteSize());
        return lease.handle();
    }

    private static LeaseHandle stage(Harness h, SessionId id) {
        LeaseHandle handle = borrow(h, id);
        assertEquals(RcStatus.OK, h.core.finishStaging(id, handle, true, 4096, "etag-1", "v1"));
        return handle;
    }

    /** A GET whose READY is inside the data phase, held there by the transport until the gate opens. */
    private static Fixture transferring(Harness h) throws Exception {
        Harness.Client client = h.client(4096);
        SessionId id = h.core.prepare(client.prepareRequest(Op.GET, 4096)).orElseThrow().sessionId();
        stage(h, id);
        assertEquals(RcStatus.OK, h.core.finishPrepare(id, true));
        client.postReceive();
        CompletableFuture<Void> gate = new CompletableFuture<>();
        h.transport.hold = gate;
        Future<SessionResult<?>> ready = READY_THREADS.submit(() -> h.core.readyTransfer(client.readyRequest(id)));
        Harness.await("READY claimed the session",
                () -> h.core.detail(id).map(d -> d.state() == SessionState.TRANSFERRING).orElse(false));
        return new Fixture(id, LeaseHandle.NONE, LeaseHandle.NONE, ready, gate);
    }

    /** Ends whatever the cell left, the way a gateway would, so every session must end exactly once. */
    private static void finish(Harness h, Fixture f) throws Exception {
        if (f.gate() != null) {
            h.transport.hold = null;
            f.gate().complete(null);
            f.runningReady().get(10, TimeUnit.SECONDS);
        }
        Optional<SessionDetail> d = h.core.detail(f.id());
        if (d.isEmpty()) {
            return;
        }
        if (d.get().stagingNonce() != 0) {
            h.core.finishStaging(f.id(), new LeaseHandle(d.get().epoch(), d.get().stagingNonce()), false, 0, "", "");
        }
        if (d.get().putViewNonce() != 0) {
            h.core.finishPut(f.id(), new LeaseHandle(d.get().epoch(), d.get().putViewNonce()), false, "", "");
        }
        if (h.core.detail(f.id()).map(x -> x.state() == SessionState.COMPLETING).orElse(false)) {
            assertEquals(RcStatus.OK, h.core.finishFinal(f.id()));
        }
        h.core.cancel(f.id(), Harness.ALICE);
        assertFalse(h.core.detail(f.id()).isPresent(), "session still live after the gateway finished: "
                + h.core.detail(f.id()));
    }

    private static Map<String, RcStatus[]> parse() {
        Map<String, RcStatus> codes = Map.of("OK", RcStatus.OK, "ST", RcStatus.STATE, "SE", RcStatus.SESSION,
                "NS", RcStatus.NO_SESSION, "DB", RcStatus.DOUBLE, "SL", RcStatus.STALE);
        Map<String, RcStatus[]> rows = new LinkedHashMap<>();
        for (String line : TABLE.strip().split("\n")) {
            line = line.strip();
            if (line.startsWith("#")) {
                continue;
            }
            String[] cells = line.split("\\s+");
            rows.put(cells[0], Arrays.stream(cells, 1, cells.length).map(c -> {
                RcStatus s = codes.get(c);
                if (s == null) {
                    throw new IllegalArgumentException("unknown status " + c + " in row " + cells[0]);
                }
                return s;
            }).toArray(RcStatus[]::new));
        }
        return rows;
    }
}
