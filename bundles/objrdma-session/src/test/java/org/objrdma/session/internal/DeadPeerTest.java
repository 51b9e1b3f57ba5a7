package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
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
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * Issue 12, finding 6: a GET client killed during READY. Its agent had the server's WRITE_WITH_IMM waiting
 * for a receive; when the process dies the connection closes and the TCP transport fails the write with
 * RETRY_EXC_ERR. That is a wire failure, not Busy: READY answers WIRE with outcome WIRE_FAIL, the session
 * ends and its staging is back in the pool at once, not after the 60 s prepare timeout a Busy rollback
 * would re-arm. Real TCP transport, real staging pool, the client in a second JVM.
 */
class DeadPeerTest {
    private static final PrincipalId ALICE = PrincipalId.fromCanonical("alice:secret");
    private static final int COOKIE = 0x5eed_0001;
    private static final int SIZE = 1 << 20;

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aClientKilledDuringReadyIsAWireFailureAndItsStagingReturnsAtOnce() throws Exception {
        Process client = startClient();
        TcpTransport server = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        BufferPool pool = BufferPool.create(StagingSettings.defaults(), server, () -> Telemetry.NOOP);
        SessionCore core = new SessionCore(SessionSettings.builder().allowAddresses(Harness.LOOPBACK).prepTimeoutMs(60_000).execTimeoutMs(30_000)
                .build(), MonotonicClock.system(), RandomSource.secure());
        RecordingListener events = new RecordingListener();
        core.useTransport(server);
        core.useStagingPool(pool);
        core.addTerminalListener(events);
        core.startReaper();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            if (line == null || !line.startsWith("READY ")) {
                fail("client process did not start: " + line);
            }
            String[] f = line.split(" ");
            EndpointInfo.Tcp prepared = new EndpointInfo.Tcp(new InetSocketAddress(f[1], Integer.parseInt(f[2])), 0,
                    HexFormat.of().parseHex(f[4]));
            long clientChannel = Long.parseLong(f[3]);
            RemoteRegion clientMemory = new RemoteRegion(Long.parseLong(f[5]), SIZE, Integer.parseInt(f[6]));

            SessionId id = core.prepare(new PrepareRequest(ALICE, Op.GET, "/bucket/object", 0, SIZE, 0x77, COOKIE,
                    prepared, clientMemory)).orElseThrow().sessionId();
            SessionBuffer lease = core.borrowStaging(id).orElseThrow();
            lease.buffer().fill((byte) 0x3c);
            assertEquals(RcStatus.OK, core.finishStaging(id, lease.handle(), true, SIZE, "\"e\"", ""));
            assertEquals(RcStatus.OK, core.finishPrepare(id, true));
            assertEquals(1, pool.stats().borrowed());

            CompletableFuture<SessionResult<ReadyResponse>> ready = CompletableFuture.supplyAsync(
                    () -> core.readyTransfer(new ReadyRequest(ALICE, id, COOKIE, clientChannel, null)));
            Harness.await("READY in its data phase", () -> core.detail(id)
                    .map(d -> d.state() == SessionState.TRANSFERRING).orElse(false));
            Thread.sleep(500); // connected, the write sent and waiting at the client's agent for a receive
            assertTrue(!ready.isDone(), "the write waits at the client (it posted no receive)");
            client.destroyForcibly();
            long killedAt = System.nanoTime();

            SessionResult<ReadyResponse> r = ready.get(20, TimeUnit.SECONDS);
            long answeredMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
            assertEquals(RcStatus.WIRE, r.status(), "a vanished peer is not Busy: " + r);
            assertEquals(ReadyOutcome.WIRE_FAIL, r.failureDetail().orElseThrow().outcome());
            TerminalEvent e = events.only(id);
            assertEquals(TerminalReason.FAILED, e.reason());
            assertEquals(Optional.of(ReadyOutcome.WIRE_FAIL), e.lastOutcome());
            assertEquals(0, pool.stats().borrowed(), "staging is back at once, not after prep.timeout");
            assertEquals(0, core.liveSessions());
            assertEquals(0, server.channelCount());
            System.out.println("client killed during READY: WIRE / WIRE_FAIL after " + answeredMs + " ms");
        } finally {
            client.destroyForcibly();
            client.waitFor(30, TimeUnit.SECONDS);
            core.shutdown(Duration.ofSeconds(2));
            pool.close();
            server.close();
        }
    }

    private static Process startClient() throws Exception {
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx128m", "--enable-native-access=ALL-UNNAMED", "-cp", classpath,
                ClientProcess.class.getName(), Integer.toString(SIZE));
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        return pb.start();
    }
}
