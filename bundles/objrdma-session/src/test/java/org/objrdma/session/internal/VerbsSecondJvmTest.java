package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
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
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.staging.internal.BufferPool;
import org.objrdma.staging.internal.StagingSettings;
import org.objrdma.verbs.internal.transport.VerbsTransport;

/**
 * The hipobj-rc-v2 session path over the verbs transport with the RDMA client in a second JVM: the software
 * device spans the two processes, so the server's WRITE_WITH_IMM (GET) and the client's (PUT) cross between
 * the JVMs' memories. GET and PUT of 4 KiB and 64 MiB and a ranged GET, checked by SHA-256 / byte for byte;
 * and a client killed while the server's 64 MiB write is in flight: READY answers WIRE, the session ends
 * once, and the staging pool is back to zero at once.
 */
class VerbsSecondJvmTest {
    private static final PrincipalId ALICE = PrincipalId.fromCanonical("alice:secret");
    private static final int COOKIE = 0x2b0c_0de5;
    private static final int MIB = 1 << 20;
    private static final int CLIENT_MEMORY = 64 * MIB;

    private SoftVerbsDevice device;
    private VerbsTransport server;
    private BufferPool pool;
    private SessionCore core;
    private RecordingListener events;
    private Process client;
    private BufferedReader fromClient;
    private PrintWriter toClient;
    private long clientAddress;
    private int clientRkey;

    @BeforeEach
    void start() throws Exception {
        device = SoftVerbsDevice.load();
        server = device.openTransport(() -> Telemetry.NOOP);
        pool = BufferPool.create(StagingSettings.defaults(), server, () -> Telemetry.NOOP);
        core = new SessionCore(SessionSettings.builder().execTimeoutMs(20_000).build(), MonotonicClock.system(),
                RandomSource.secure());
        core.useTransport(server);
        core.useStagingPool(pool);
        events = new RecordingListener();
        core.addTerminalListener(events);
        core.startReaper();

        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "--enable-native-access=ALL-UNNAMED",
                "-D" + SoftVerbsDevice.LIBRARY_PROPERTY + "=" + SoftVerbsDevice.libraryPath(), "-cp", classpath,
                VerbsClientProcess.class.getName(), Integer.toString(CLIENT_MEMORY));
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        client = pb.start();
        fromClient = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
        toClient = new PrintWriter(new OutputStreamWriter(client.getOutputStream(), StandardCharsets.UTF_8), true);
        String[] ready = expect("READY");
        clientAddress = Long.parseLong(ready[1]);
        clientRkey = Integer.parseInt(ready[2]);
    }

    @AfterEach
    void stop() throws Exception {
        try {
            if (client.isAlive()) {
                toClient.close();
                assertTrue(client.waitFor(20, TimeUnit.SECONDS), "the client JVM did not end");
            }
            ShutdownReport report = core.shutdown(Duration.ofSeconds(2));
            assertTrue(report.clean(), report.toString());
            events.bySession.forEach((id, list) -> assertEquals(1, list.size(), "terminal events of " + id + ": " + list));
            assertEquals(0, pool.stats().borrowed(), "staging buffers still lent");
        } finally {
            client.destroyForcibly();
            pool.close();
            server.close();
            device.close();
        }
    }

    private String[] expect(String word) throws Exception {
        String line = fromClient.readLine();
        if (line == null || !line.startsWith(word + " ") && !line.equals(word)) {
            throw new AssertionError("client JVM answered " + line + ", expected " + word);
        }
        return line.split(" ");
    }

    private String[] command(String line, String answer) throws Exception {
        toClient.println(line);
        return expect(answer);
    }

    private static String sha256(byte[] b, int off, int len) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        md.update(b, off, len);
        return HexFormat.of().formatHex(md.digest());
    }

    private static byte[] object(long seed, int size) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** A fresh client queue pair; returns its endpoint. */
    private EndpointInfo.Verbs open() throws Exception {
        return VerbsClientProcess.parse(command("OPEN", "CH"), 1);
    }

    private static EndpointInfo prepared(EndpointInfo.Verbs mine) {
        return new EndpointInfo.Verbs(0, mine.psn(), mine.gid(), mine.lid(), mine.port(), mine.mtu());
    }

    /** GET of {@code length} bytes of {@code object} from {@code offset}, staged and prepared, the client armed. */
    private SessionId preparedGet(byte[] object, int offset, int length, EndpointInfo.Verbs mine) throws Exception {
        RemoteRegion into = new RemoteRegion(clientAddress, length, clientRkey);
        PrepareResponse prep = core.prepare(new PrepareRequest(ALICE, Op.GET, "/bucket/get", offset, length, mine.psn(),
                COOKIE, prepared(mine), into)).orElseThrow();
        SessionId id = prep.sessionId();
        SessionBuffer lease = core.borrowStaging(id).orElseThrow();
        MemorySegment.copy(MemorySegment.ofArray(object), offset, lease.buffer(), 0, length);
        assertEquals(RcStatus.OK, core.finishStaging(id, lease.handle(), true, length, "\"g\"", ""));
        assertEquals(RcStatus.OK, core.finishPrepare(id, true));
        command("ARM " + VerbsClientProcess.format((EndpointInfo.Verbs) prep.serverEndpoint()), "ARMED");
        return id;
    }

    private void get(int objectSize, int offset, int length) throws Exception {
        byte[] object = object(objectSize + offset, objectSize);
        EndpointInfo.Verbs mine = open();
        SessionId id = preparedGet(object, offset, length, mine);
        ReadyResponse r = core.readyTransfer(new ReadyRequest(ALICE, id, COOKIE, mine.qpn(), null)).orElseThrow();
        assertEquals(ReadyOutcome.OK, r.outcome());
        assertEquals(length, r.bytesTransferred());
        String[] got = command("WAITRECV", "RECV");
        assertEquals("SUCCESS", got[1]);
        assertEquals("RECV_RDMA_WITH_IMM", got[2]);
        assertEquals(COOKIE, Integer.parseInt(got[3]));
        assertEquals(length, Long.parseLong(got[4]));
        assertEquals(sha256(object, offset, length), got[5], "the bytes in the client JVM differ");
        assertEquals(RcStatus.OK, core.finishFinal(id));
        assertEquals(TerminalReason.COMPLETED, events.only(id).reason());
        Harness.await("staging returned", () -> pool.stats().borrowed() == 0);
    }

    private void put(int size) throws Exception {
        long seed = 1000 + size;
        EndpointInfo.Verbs mine = open();
        command("FILL " + seed + " " + size, "OK");
        PrepareResponse prep = core.prepare(new PrepareRequest(ALICE, Op.PUT, "/bucket/put", 0, size, mine.psn(), COOKIE,
                prepared(mine), null)).orElseThrow();
        SessionId id = prep.sessionId();
        assertEquals(RcStatus.OK, core.finishPrepare(id, true));
        CompletableFuture<SessionResult<ReadyResponse>> ready = CompletableFuture.supplyAsync(
                () -> core.readyTransfer(new ReadyRequest(ALICE, id, COOKIE, mine.qpn(), null)));
        Harness.await("READY claimed the session", () -> core.detail(id)
                .map(d -> d.state() != SessionState.PREPARED).orElse(true));
        String[] st = command("PUT " + VerbsClientProcess.format((EndpointInfo.Verbs) prep.serverEndpoint()) + " "
                + prep.stagingRegion().address() + " " + prep.stagingRegion().rkey() + " " + size + " " + COOKIE, "PUT");
        assertEquals("SUCCESS", st[1]);
        ReadyResponse r = ready.get(20, TimeUnit.SECONDS).orElseThrow();
        assertEquals(ReadyOutcome.OK, r.outcome());
        assertEquals(size, r.bytesTransferred());
        SessionBuffer view = core.getPutData(id).orElseThrow();
        assertArrayEquals(object(seed, size), view.buffer().asSlice(0, size).toArray(ValueLayout.JAVA_BYTE));
        assertEquals(RcStatus.OK, core.finishPut(id, view.handle(), true, "\"p\"", ""));
        assertEquals(TerminalReason.COMPLETED, events.only(id).reason());
        Harness.await("staging returned", () -> pool.stats().borrowed() == 0);
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void getAndPutOf4KiBAnd64MiBAndARangedGetCrossTheJvms() throws Exception {
        get(4096, 0, 4096);
        put(4096);
        get(64 * MIB, 0, 64 * MIB);
        put(64 * MIB);
        get(8 * MIB, 3 * MIB + 4096, 2 * MIB);
        assertEquals(0, core.liveSessions());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aClientKilledMidTransferEndsTheSessionOnceAndReturnsStaging() throws Exception {
        byte[] object = object(7, 64 * MIB);
        EndpointInfo.Verbs mine = open();
        SessionId id = preparedGet(object, 0, 64 * MIB, mine);
        // freeze the client JVM (its device too): the server's 64 MiB write stops in the middle, in the socket
        Process stop = new ProcessBuilder("kill", "-STOP", Long.toString(client.pid())).start();
        assertEquals(0, stop.waitFor());
        CompletableFuture<SessionResult<ReadyResponse>> ready = CompletableFuture.supplyAsync(
                () -> core.readyTransfer(new ReadyRequest(ALICE, id, COOKIE, mine.qpn(), null)));
        Harness.await("READY in its data phase", () -> core.detail(id)
                .map(d -> d.state() == SessionState.TRANSFERRING).orElse(false));
        Thread.sleep(300);
        assertFalse(ready.isDone(), "the write is stuck at the frozen client: " + ready.getNow(null));
        assertEquals(1, pool.stats().borrowed());
        client.destroyForcibly();
        assertTrue(client.waitFor(20, TimeUnit.SECONDS));

        SessionResult<ReadyResponse> r = ready.get(20, TimeUnit.SECONDS);
        assertEquals(RcStatus.WIRE, r.status(), "a vanished peer is a wire failure: " + r);
        TerminalEvent e = events.only(id);
        assertEquals(TerminalReason.FAILED, e.reason());
        assertEquals(Optional.of(ReadyOutcome.WIRE_FAIL), e.lastOutcome());
        Harness.await("staging returned", () -> pool.stats().borrowed() == 0);
        assertEquals(0, core.liveSessions());
        Thread.sleep(200);
        assertEquals(1, events.count(id), "the session ended more than once");
    }
}
