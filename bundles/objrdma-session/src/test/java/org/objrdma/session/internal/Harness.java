package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.PrepareResponse;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.SessionId;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.TransportException;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.testsupport.CountingTelemetry;
import org.objrdma.testsupport.FakeClock;
import org.objrdma.testsupport.FakeTransport;

/** A session core on a fake clock, a loopback transport and a fake staging pool, plus a client side. */
final class Harness implements AutoCloseable {
    static final PrincipalId ALICE = PrincipalId.fromCanonical("alice:secret");
    static final PrincipalId BOB = PrincipalId.fromCanonical("bob:secret");
    static final int COOKIE = 0x1234_abcd;
    static final int PSN = 0x00_0042;
    static final String TARGET = "/bucket/key";

    final FakeClock clock = FakeClock.atMillis(1_000_000);
    final FakeTransport transport = new FakeTransport("loop");
    final FakeStagingPool pool = new FakeStagingPool(transport, 1 << 20);
    final RecordingListener events = new RecordingListener();
    /** Every counter the core moves, so a test can check the one its scenario must move. */
    final CountingTelemetry telemetry = new CountingTelemetry();
    final SessionCore core;
    private final Arena clientArena = Arena.ofShared();

    /**
     * Settings tests start from: short deadlines on the fake clock, generous limits, and control plane only,
     * so that the state-table tests may PREPARE sessions without a client endpoint.
     */
    /** The allow list tests on loopback configure: the address policy refuses loopback endpoints otherwise. */
    static final String LOOPBACK = "127.0.0.0/8, ::1";

    static SessionSettings.Builder settings() {
        return SessionSettings.builder().allowAddresses(LOOPBACK).controlPlaneOnly(true).prepTimeoutMs(1_000).execTimeoutMs(2_000).leaseTimeoutMs(5_000)
                .maxSessions(100_000).maxUserSessions(100_000).maxQps(100_000).maxUserQps(100_000);
    }

    Harness() {
        this(settings().build());
    }

    Harness(SessionSettings settings) {
        core = new SessionCore(settings, clock::millis, RandomSource.secure());
        core.useTransport(transport);
        core.useStagingPool(pool);
        core.addTerminalListener(events);
        core.useTelemetry(telemetry);
    }

    /** PREPARE of a control-plane-only session (no client endpoint: no data moves). */
    PrepareResponse prepare(Op op, int size) {
        return prepare(ALICE, op, size);
    }

    PrepareResponse prepare(PrincipalId who, Op op, int size) {
        return core.prepare(new PrepareRequest(who, op, TARGET, 0, size, PSN, COOKIE, null, null)).orElseThrow();
    }

    ReadyRequest ready(SessionId id) {
        return new ReadyRequest(ALICE, id, COOKIE, 1, null);
    }

    /** The client of a data-phase session: its own channel and registered memory on the loopback transport. */
    final class Client implements AutoCloseable {
        final Channel channel;
        final MemorySegment memory;
        final MemoryRegion region;

        Client(int size) throws TransportException {
            channel = transport.openChannel(ChannelOptions.DEFAULT);
            memory = clientArena.allocate(size, 4096);
            region = transport.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        }

        /** The client endpoint as sent at PREPARE: channel id 0 until READY names it. */
        EndpointInfo preparedEndpoint() {
            EndpointInfo.Tcp mine = (EndpointInfo.Tcp) channel.localEndpoint();
            return new EndpointInfo.Tcp(mine.address(), 0, mine.key());
        }

        PrepareRequest prepareRequest(Op op, int size) {
            return new PrepareRequest(ALICE, op, TARGET, 0, size, PSN, COOKIE, preparedEndpoint(),
                    op == Op.GET ? new RemoteRegion(region.address(), region.length(), region.rkey()) : null);
        }

        ReadyRequest readyRequest(SessionId id) {
            return new ReadyRequest(ALICE, id, COOKIE, channel.id(), null);
        }

        /** GET: the receive the server's WRITE_WITH_IMM consumes. */
        CompletableFuture<BatchResult> postReceive() {
            return channel.submit(List.of(WorkRequest.recv(77)), Duration.ofSeconds(10));
        }

        @Override
        public void close() {
            channel.close();
            region.close();
        }
    }

    Client client(int size) throws TransportException {
        return new Client(size);
    }

    private final List<Client> putClients = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * A PUT whose data phase really ran: a client (closed with the harness) PREPAREs with its endpoint, READY
     * runs, the client WRITE_WITH_IMMs {@code size} bytes with the cookie. The session is COMPLETING, READY's
     * answer checked OK.
     */
    SessionId completedPut(int size) throws Exception {
        Client c = client(size);
        putClients.add(c);
        PrepareResponse prep = core.prepare(c.prepareRequest(Op.PUT, size)).orElseThrow();
        SessionId id = prep.sessionId();
        assertEquals(org.objrdma.api.session.RcStatus.OK, core.finishPrepare(id, true));
        long serverChannel = core.detail(id).orElseThrow().channelId();
        CompletableFuture<org.objrdma.api.session.SessionResult<org.objrdma.api.session.ReadyResponse>> ready =
                CompletableFuture.supplyAsync(() -> core.readyTransfer(c.readyRequest(id)));
        // the server posts its receive before it connects, so CONNECTED means the write will find it
        await("server connected", () -> transport.channelState(serverChannel)
                == org.objrdma.api.transport.ChannelState.CONNECTED);
        c.channel.connect(prep.serverEndpoint());
        WorkRequest write = WorkRequest.writeWithImm(9, new org.objrdma.api.transport.ScatterGatherEntry(c.region, 0,
                size), prep.stagingRegion().address(), prep.stagingRegion().rkey(), COOKIE);
        assertTrue(c.channel.submit(List.of(write), Duration.ofSeconds(5)).get(5, TimeUnit.SECONDS).completions()
                .get(0).isSuccess(), "the client's write");
        assertEquals(org.objrdma.api.session.ReadyOutcome.OK, ready.get(10, TimeUnit.SECONDS).orElseThrow().outcome());
        return id;
    }

    static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(2);
        }
    }

    /** Every session gone, every lease and charge returned, every channel closed. */
    void assertQuiescent() {
        assertEquals(0, core.liveSessions(), "live sessions");
        assertEquals(0, pool.outstanding.get(), "staging leases out");
        assertEquals(0, pool.doubleReturns.get(), "double returns");
        LimitAccounting.Usage usage = core.usage();
        assertEquals(new LimitAccounting.Usage(0, 0, 0), usage, "limit charges");
    }

    @Override
    public void close() {
        core.shutdown(Duration.ofMillis(200));
        putClients.forEach(Client::close);
        pool.close();
        clientArena.close();
    }
}
