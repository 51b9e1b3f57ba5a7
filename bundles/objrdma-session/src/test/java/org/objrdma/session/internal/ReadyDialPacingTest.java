package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.RcStatus;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.ReadyResponse;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.session.SessionResult;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.staging.internal.BufferPool;
import org.objrdma.staging.internal.StagingSettings;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * READY's dial of the client endpoint, over real sockets, may not tell a port scanner anything: a closed port and an
 * open one that never speaks the protocol (a plain {@link ServerSocket}) give the same answer (WIRE, WIRE_FAIL, no
 * bytes) after at least {@code dial.failure.delay.ms}, and within a margin of each other. Before the pacing the
 * closed port answered in about a millisecond and the silent one after the handshake timed out.
 */
class ReadyDialPacingTest {
    private static final PrincipalId ALICE = PrincipalId.fromCanonical("alice:secret");
    private static final int COOKIE = 0x5ca1_ab1e;
    private static final int SIZE = 4096;
    private static final long DELAY_MS = 1_200;
    /** Scheduling noise on a shared 2-core machine; far below what a closed port vs a silent one differed by. */
    private static final long MARGIN_MS = 700;

    private TcpTransport server;
    private BufferPool pool;
    private SessionCore core;
    private ServerSocket silent;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        pool = BufferPool.create(StagingSettings.defaults(), server, () -> Telemetry.NOOP);
        core = new SessionCore(SessionSettings.builder().allowAddresses(Harness.LOOPBACK).execTimeoutMs(30_000)
                .dialFailureDelayMs(DELAY_MS).build(), MonotonicClock.system(), RandomSource.secure());
        core.useTransport(server);
        core.useStagingPool(pool);
        core.startReaper();
        silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().start(() -> {
            try {
                while (true) {
                    accepted.add(silent.accept()); // accepts, never reads or writes: not an objrdma agent
                }
            } catch (IOException closed) {
                // the test ended
            }
        });
    }

    @AfterEach
    void stop() throws IOException {
        silent.close();
        for (Socket s : accepted) {
            s.close();
        }
        core.shutdown(Duration.ofSeconds(2));
        pool.close();
        server.close();
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort(); // closed when this returns: connecting is refused at once
        }
    }

    /** A prepared session whose client endpoint is {@code port} on loopback; GET sessions are staged. */
    private SessionId prepared(Op op, int port) {
        EndpointInfo client = new EndpointInfo.Tcp(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0,
                new byte[32]);
        SessionId id = core.prepare(new PrepareRequest(ALICE, op, "/bucket/" + op, 0, SIZE, 0x77, COOKIE, client,
                op == Op.GET ? new RemoteRegion(0x1000, SIZE, 0x3) : null)).orElseThrow().sessionId();
        if (op == Op.GET) {
            SessionBuffer lease = core.borrowStaging(id).orElseThrow();
            assertEquals(RcStatus.OK, core.finishStaging(id, lease.handle(), true, SIZE, "\"e\"", ""));
        }
        assertEquals(RcStatus.OK, core.finishPrepare(id, true));
        return id;
    }

    private record Answer(RcStatus status, ReadyResponse response, long millis) {
    }

    private Answer ready(SessionId id) {
        long start = System.nanoTime();
        SessionResult<ReadyResponse> r = core.readyTransfer(new ReadyRequest(ALICE, id, COOKIE, 1, null));
        long millis = (System.nanoTime() - start) / 1_000_000;
        return new Answer(r.status(), r.failureDetail().orElse(null), millis);
    }

    @Test
    void aClosedPortAndASilentOpenPortAnswerAlikeAfterTheDelay() throws Exception {
        List<Answer> answers = new ArrayList<>();
        for (Op op : new Op[] {Op.GET, Op.PUT}) {
            answers.add(ready(prepared(op, closedPort())));
            answers.add(ready(prepared(op, silent.getLocalPort())));
        }
        for (Answer a : answers) {
            assertEquals(RcStatus.WIRE, a.status(), a.toString());
            assertEquals(answers.get(0).response(), a.response(), "one answer for every port: " + answers);
            assertTrue(a.millis() >= DELAY_MS, "no failed dial answers before the delay: " + answers);
            assertTrue(a.millis() < DELAY_MS + MARGIN_MS, "the dial is cut off at the delay: " + answers);
        }
        assertTrue(!accepted.isEmpty(), "the silent port was really dialed");
    }
}
