package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
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
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryGrant;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.staging.internal.BufferPool;
import org.objrdma.staging.internal.StagingSettings;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * Issue 12, finding 1, as an attacker runs it: principal P1 (a second JVM, {@link AttackerProcess}) keeps PUT
 * sessions connected and cancels another, learning the cancelled session's staging address and rkey. The buffer is
 * re-lent to principal P2's GET (checked: same address). P1's READ and WRITE with the learned address and rkey, with
 * the buffer registration's own rkey (as if it had leaked), and with the grant of another of its own sessions, all
 * complete REM_ACCESS_ERR; P2's GET then delivers exactly P2's bytes. Real TCP transport, real staging pool. Each
 * attack uses a channel of its own (a refused access puts the channel in ERROR, as on a NIC); a WRITE through a
 * session's own grant succeeds first, so the refusals are not a path that never works.
 */
class StagingGrantIsolationTest {
    private static final PrincipalId P1 = PrincipalId.fromCanonical("p1:secret-one");
    private static final PrincipalId P2 = PrincipalId.fromCanonical("p2:secret-two");
    private static final int SIZE = 4096;
    private static final int COOKIE = 0x6a17_0001;
    private static final int A1 = 0, A2 = 1, A3 = 2, A4 = 3, B = 4;

    private record ChildChannel(InetSocketAddress agent, long id, byte[] key) {
        EndpointInfo prepared() {
            return new EndpointInfo.Tcp(agent, 0, key);
        }
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aCancelledSessionsKeyReachesNothingOnceItsBufferIsLentToAnotherPrincipal() throws Exception {
        Process attacker = start(5);
        TcpTransport server = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        TcpTransport p2Transport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        BufferPool pool = BufferPool.create(StagingSettings.defaults(), server, () -> Telemetry.NOOP);
        SessionCore core = new SessionCore(SessionSettings.builder().allowAddresses(Harness.LOOPBACK)
                .execTimeoutMs(10_000).build(), MonotonicClock.system(), RandomSource.secure());
        core.useTransport(server);
        core.useStagingPool(pool);
        core.startReaper();
        Arena arena = Arena.ofShared();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(attacker.getInputStream(), StandardCharsets.UTF_8));
            PrintStream in = new PrintStream(attacker.getOutputStream(), true, StandardCharsets.UTF_8);
            List<ChildChannel> child = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                String line = out.readLine();
                if (line == null || !line.startsWith("CH " + i + " ")) {
                    fail("attacker process did not start: " + line);
                }
                String[] f = line.split(" ");
                child.add(new ChildChannel(new InetSocketAddress(f[2], Integer.parseInt(f[3])), Long.parseLong(f[4]),
                        HexFormat.of().parseHex(f[5])));
            }
            // P1's five PUT sessions, each with the staging grant PREPARE hands out
            List<PrepareResponse> p1 = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                p1.add(core.prepare(new PrepareRequest(P1, Op.PUT, "/p1/obj" + i, 0, SIZE, 0x100 + i, COOKIE,
                        child.get(i).prepared(), null)).orElseThrow());
            }
            for (int i : new int[] {A1, A2, A3, A4}) {
                EndpointInfo.Tcp s = (EndpointInfo.Tcp) p1.get(i).serverEndpoint();
                assertEquals("CONNECTED " + i, ask(in, out, "CONNECT " + i + " " + s.address().getAddress().getHostAddress()
                        + " " + s.address().getPort() + " " + s.channelId() + " " + HexFormat.of().formatHex(s.key())));
            }
            // controls: a session's own grant through its own channel works
            assertEquals("DONE " + A1 + " SUCCESS", op(in, out, "WRITE", A1, p1.get(A1).stagingRegion()));
            assertEquals("DONE " + A4 + " SUCCESS", op(in, out, "WRITE", A4, p1.get(A4).stagingRegion()));

            RemoteRegion learned = p1.get(B).stagingRegion();
            assertEquals(RcStatus.OK, core.cancel(p1.get(B).sessionId(), P1));
            // the freed buffer is the next one lent; its registration's own key, as if it had leaked
            int regionKey;
            long bufferAddress;
            try (StagingLease peek = pool.borrow(SIZE, P2, "peek")) {
                bufferAddress = peek.segment().address();
                assertNotEquals(bufferAddress, learned.address(), "the PREPARE answer names no server address (TCP)");
                regionKey = peek.region().rkey();
                assertEquals(EnumSet.of(Access.LOCAL_WRITE), peek.region().access(), "registration is local-only");
            }
            assertNotEquals(learned.rkey(), regionKey);

            // P2's GET gets that very buffer and stages its object in it
            byte[] object = new byte[SIZE];
            new Random(42).nextBytes(object);
            MemorySegment p2Memory = arena.allocate(SIZE, 4096);
            MemoryRegion p2Region = p2Transport.register(p2Memory, EnumSet.of(Access.LOCAL_WRITE));
            Channel p2Channel = p2Transport.openChannel(ChannelOptions.DEFAULT);
            MemoryGrant p2Grant = p2Channel.grant(p2Region, 0, SIZE, EnumSet.of(Access.REMOTE_WRITE));
            EndpointInfo.Tcp p2Ep = (EndpointInfo.Tcp) p2Channel.localEndpoint();
            PrepareResponse get = core.prepare(new PrepareRequest(P2, Op.GET, "/p2/secret", 0, SIZE, 0x222, COOKIE,
                    new EndpointInfo.Tcp(p2Ep.address(), 0, p2Ep.key()), p2Grant.asRemote())).orElseThrow();
            assertEquals(0, get.stagingRegion().address(), "a GET answer names no server address");
            assertEquals(PrepareCommand.NO_REMOTE_KEY, get.stagingRegion().rkey(), "a GET is granted nothing on the server");
            SessionBuffer staged = core.borrowStaging(get.sessionId()).orElseThrow();
            MemorySegment.copy(MemorySegment.ofArray(object), 0, staged.buffer(), 0, SIZE);
            assertEquals(RcStatus.OK, core.finishStaging(get.sessionId(), staged.handle(), true, SIZE, "\"p2\"", ""));
            assertEquals(RcStatus.OK, core.finishPrepare(get.sessionId(), true));

            // P1 attacks through its live connections
            assertEquals("DONE " + A1 + " REM_ACCESS_ERR", op(in, out, "READ", A1, learned));
            assertEquals("DONE " + A2 + " REM_ACCESS_ERR", op(in, out, "WRITE", A2, learned));
            assertEquals("DONE " + A3 + " REM_ACCESS_ERR", op(in, out, "WRITE", A3, p1.get(A4).stagingRegion()),
                    "a grant of another channel");
            assertEquals("DONE " + A4 + " REM_ACCESS_ERR", op(in, out, "WRITE", A4,
                    new RemoteRegion(bufferAddress, SIZE, regionKey)), "the registration's own key at the real address");

            // P2's bytes are what P2 staged
            CompletableFuture<BatchResult> arrival = p2Channel.submit(List.of(WorkRequest.recv(9)), Duration.ofSeconds(10));
            ReadyResponse r = core.readyTransfer(new ReadyRequest(P2, get.sessionId(), COOKIE, p2Channel.id(), null))
                    .orElseThrow();
            assertEquals(ReadyOutcome.OK, r.outcome());
            assertEquals(WcStatus.SUCCESS, arrival.get(10, TimeUnit.SECONDS).completions().get(0).status());
            assertArrayEquals(object, p2Memory.toArray(ValueLayout.JAVA_BYTE), "P2's object arrived unchanged");
            assertEquals(RcStatus.OK, core.finishFinal(get.sessionId()));
            p2Grant.revoke();
            p2Channel.close();
            p2Region.close();
            for (int i : new int[] {A1, A2, A3, A4}) {
                assertEquals(RcStatus.OK, core.cancel(p1.get(i).sessionId(), P1));
            }
            Harness.await("every session ended", () -> core.liveSessions() == 0);
            assertEquals(0, pool.stats().borrowed());
        } finally {
            attacker.getOutputStream().close();
            attacker.destroyForcibly();
            attacker.waitFor(30, TimeUnit.SECONDS);
            core.shutdown(Duration.ofSeconds(2));
            pool.close();
            p2Transport.close();
            server.close();
            arena.close();
        }
    }

    private static String op(PrintStream in, BufferedReader out, String what, int channel, RemoteRegion at)
            throws Exception {
        return ask(in, out, what + " " + channel + " " + at.address() + " " + at.rkey() + " " + SIZE);
    }

    private static String ask(PrintStream in, BufferedReader out, String command) throws Exception {
        in.println(command);
        String answer = out.readLine();
        if (answer == null) {
            fail("attacker process ended after: " + command);
        }
        return answer;
    }

    private static Process start(int channels) throws Exception {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx128m", "--enable-native-access=ALL-UNNAMED", "-cp", classpath,
                AttackerProcess.class.getName(), Integer.toString(channels), Integer.toString(SIZE));
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        return pb.start();
    }
}
