package org.objrdma.session.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
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
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.EndpointInfo;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.WcStatus;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.staging.internal.BufferPool;
import org.objrdma.staging.internal.StagingSettings;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;

/**
 * Issue 17, load: many principals open sessions at once against the session manager's limits, on the real TCP
 * transport and the real staging pool (server and client transports in this process). Every attempt is a real
 * GET: the client registers memory and opens a channel, PREPAREs with its endpoint; a held session is staged,
 * then READY moves the bytes into the client's memory over TCP. Printed: held, refused with LIMIT, p50/p99 of
 * PREPARE and READY. Checked: every attempt is held or refused with LIMIT (nothing else), every held session
 * delivers its own bytes and ends exactly once, a flood from one principal does not starve another, and after
 * it all nothing is lent, charged, open or running (threads and fds back to the baseline).
 *
 * <p>Size: {@code objrdma.load.sessions} (default 10 000). {@code objrdma.soak.seconds} runs
 * {@link #soak()} instead: the same rounds again and again for that long, heap, threads and fds sampled every
 * {@code objrdma.soak.sample.seconds} (default 30) and checked flat (README "Reliability").
 */
class SessionLoadTest {
    private static final int SESSIONS = Integer.getInteger("objrdma.load.sessions", 10_000);
    private static final int PRINCIPALS = 100;
    private static final int THREADS = 16;
    private static final int SIZE = 4096;
    private static final int COOKIE = 0x10ad_cafe;
    /** Limits the attempts run into: 512 sessions in all, 16 per principal (and the staging pool's own shares). */
    private static final int MAX_SESSIONS = 512;
    private static final int MAX_USER_SESSIONS = 16;

    private TcpTransport server;
    private TcpTransport clientTransport;
    private BufferPool pool;
    private SessionCore core;
    private RecordingListener events;

    @BeforeEach
    void start() throws Exception {
        server = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        clientTransport = TcpTransport.start(TcpSettings.loopbackDefaults(), () -> Telemetry.NOOP);
        pool = BufferPool.create(StagingSettings.defaults(), server, () -> Telemetry.NOOP);
        core = new SessionCore(SessionSettings.builder().allowAddresses(Harness.LOOPBACK).prepTimeoutMs(120_000)
                .execTimeoutMs(20_000).maxSessions(MAX_SESSIONS).maxUserSessions(MAX_USER_SESSIONS)
                .maxQps(MAX_SESSIONS).maxUserQps(MAX_USER_SESSIONS).build(), MonotonicClock.system(),
                RandomSource.secure());
        core.useTransport(server);
        core.useStagingPool(pool);
        events = new RecordingListener();
        core.addTerminalListener(events);
        core.startReaper();
    }

    @AfterEach
    void stop() {
        ShutdownReport report = core.shutdown(Duration.ofSeconds(5));
        pool.close();
        clientTransport.close();
        server.close();
        assertTrue(report.clean(), report.toString());
    }

    /** One attempt's client: its own memory, region and channel on the client transport. */
    private final class Client implements AutoCloseable {
        final Arena arena = Arena.ofShared();
        final MemorySegment memory = arena.allocate(SIZE, 4096);
        final MemoryRegion region;
        final Channel channel;
        final PrincipalId who;

        Client(PrincipalId who) throws Exception {
            this.who = who;
            region = clientTransport.register(memory, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
            channel = clientTransport.openChannel(ChannelOptions.DEFAULT);
        }

        PrepareRequest prepare(int n) {
            EndpointInfo.Tcp mine = (EndpointInfo.Tcp) channel.localEndpoint();
            return new PrepareRequest(who, Op.GET, "/load/o" + n, 0, SIZE, 0x100 + (n & 0xfff), COOKIE,
                    new EndpointInfo.Tcp(mine.address(), 0, mine.key()),
                    new RemoteRegion(region.address(), region.length(), region.rkey()));
        }

        ReadyRequest ready(SessionId id) {
            return new ReadyRequest(who, id, COOKIE, channel.id(), null);
        }

        @Override
        public void close() {
            channel.close();
            region.close();
            arena.close();
        }
    }

    private record Held(int n, Client client, SessionId id) {
    }

    /** What one round measured. */
    private record Round(int attempts, int held, int limited, long[] prepareNanos, long[] readyNanos,
                         Map<PrincipalId, Integer> heldBy) {
        String figures() {
            return String.format("%d attempts from %d principals: %d held, %d refused with LIMIT; PREPARE p50 %.2f ms"
                    + " p99 %.2f ms; READY p50 %.2f ms p99 %.2f ms", attempts, PRINCIPALS, held, limited,
                    ms(prepareNanos, 50), ms(prepareNanos, 99), ms(readyNanos, 50), ms(readyNanos, 99));
        }
    }

    private static double ms(long[] nanos, int percentile) {
        if (nanos.length == 0) {
            return 0;
        }
        long[] s = nanos.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, (int) Math.ceil(percentile / 100.0 * s.length) - 1)] / 1e6;
    }

    private static byte fill(int n) {
        return (byte) (n * 31 + 7);
    }

    /**
     * {@code attempts} PREPAREs on {@link #THREADS} threads, principal {@code who(n)}; all held ones stay held
     * until every attempt is answered (so they are concurrent), then every held one READYs and is checked.
     */
    private Round round(int attempts, java.util.function.IntFunction<PrincipalId> who) throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(THREADS);
        Queue<Held> held = new ConcurrentLinkedQueue<>();
        Queue<Long> prepareNanos = new ConcurrentLinkedQueue<>();
        Queue<Long> readyNanos = new ConcurrentLinkedQueue<>();
        AtomicInteger limited = new AtomicInteger();
        Map<PrincipalId, Integer> heldBy = new ConcurrentHashMap<>();
        try {
            AtomicInteger next = new AtomicInteger();
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                workers.add(threads.submit(() -> {
                    for (int n = next.getAndIncrement(); n < attempts; n = next.getAndIncrement()) {
                        Client c = new Client(who.apply(n));
                        long t0 = System.nanoTime();
                        SessionResult<PrepareResponse> r = core.prepare(c.prepare(n));
                        prepareNanos.add(System.nanoTime() - t0);
                        if (!r.isOk()) {
                            assertEquals(RcStatus.LIMIT, r.status(), "attempt " + n);
                            limited.incrementAndGet();
                            c.close();
                            continue;
                        }
                        SessionId id = r.value().sessionId();
                        SessionBuffer lease = core.borrowStaging(id).orElseThrow();
                        lease.buffer().asSlice(0, SIZE).fill(fill(n));
                        assertEquals(RcStatus.OK, core.finishStaging(id, lease.handle(), true, SIZE, "\"e\"", ""));
                        assertEquals(RcStatus.OK, core.finishPrepare(id, true));
                        heldBy.merge(c.who, 1, Integer::sum);
                        held.add(new Held(n, c, id));
                    }
                    return null;
                }));
            }
            for (Future<?> w : workers) {
                w.get(120, TimeUnit.SECONDS);
            }
            assertEquals(held.size(), core.liveSessions(), "every held session is live at once");
            assertTrue(held.size() <= MAX_SESSIONS, held.size() + " held, limit " + MAX_SESSIONS);
            heldBy.forEach((p, n) -> assertTrue(n <= MAX_USER_SESSIONS, p + " holds " + n));

            List<Future<?>> readies = new ArrayList<>();
            for (Held h : held) {
                readies.add(threads.submit(() -> {
                    try (Client c = h.client()) {
                        CompletableFuture<BatchResult> arrival = c.channel.submit(List.of(WorkRequest.recv(1)),
                                Duration.ofSeconds(20));
                        long t0 = System.nanoTime();
                        ReadyResponse r = core.readyTransfer(c.ready(h.id())).orElseThrow();
                        readyNanos.add(System.nanoTime() - t0);
                        assertEquals(ReadyOutcome.OK, r.outcome());
                        assertEquals(WcStatus.SUCCESS, arrival.get(20, TimeUnit.SECONDS).completions().get(0).status());
                        assertEquals(fill(h.n()), c.memory.get(ValueLayout.JAVA_BYTE, 0));
                        assertEquals(fill(h.n()), c.memory.get(ValueLayout.JAVA_BYTE, SIZE - 1));
                        assertEquals(RcStatus.OK, core.finishFinal(h.id()));
                    }
                    return null;
                }));
            }
            for (Future<?> r : readies) {
                r.get(120, TimeUnit.SECONDS);
            }
            for (Held h : held) {
                assertEquals(1, events.count(h.id()), "one terminal notification for " + h.id());
            }
        } finally {
            threads.shutdownNow();
            assertTrue(threads.awaitTermination(30, TimeUnit.SECONDS));
        }
        assertEquals(attempts, held.size() + limited.get(), "every attempt held or refused with LIMIT");
        return new Round(attempts, held.size(), limited.get(),
                prepareNanos.stream().mapToLong(Long::longValue).toArray(),
                readyNanos.stream().mapToLong(Long::longValue).toArray(), heldBy);
    }

    private static PrincipalId principal(int i) {
        return PrincipalId.fromCanonical("load-" + i + ":secret");
    }

    private void assertQuiet() throws InterruptedException {
        Harness.await("staging returned", () -> pool.stats().borrowed() == 0 && pool.stats().bytesBorrowed() == 0);
        Harness.await("no live session", () -> core.liveSessions() == 0);
        Harness.await("no limit charge", () -> core.usage().equals(new LimitAccounting.Usage(0, 0, 0)));
        Harness.await("server channels closed", () -> server.channelCount() == 0);
        Harness.await("client channels closed", () -> clientTransport.channelCount() == 0);
    }

    static int openFds() throws java.io.IOException {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return (int) s.count();
        }
    }

    @Test
    void tenThousandSessionsFromManyPrincipalsAgainstTheLimits() throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        round(THREADS * 2, SessionLoadTest::principal); // warm-up: pools and caches of the first use
        assertQuiet();
        int baseThreads = threads.getThreadCount();
        int baseFds = openFds();

        Round r = round(SESSIONS, n -> principal(n % PRINCIPALS));
        System.out.println("load: " + r.figures());
        assertTrue(r.limited() > 0, "the attempts ran into the limits");
        assertTrue(r.held() >= Math.min(SESSIONS, MAX_USER_SESSIONS), "sessions were held: " + r.figures());
        assertQuiet();
        assertEquals(0, core.readySlotsInUse());
        Harness.await("threads back to " + baseThreads + " (+3)", () -> threads.getThreadCount() <= baseThreads + 3);
        Harness.await("fds back to " + baseFds + " (+4)", () -> {
            try {
                return openFds() <= baseFds + 4;
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    @Test
    void aFloodFromOnePrincipalDoesNotStarveAnother() throws Exception {
        PrincipalId flood = principal(-1);
        PrincipalId victim = principal(-2);
        int victims = MAX_USER_SESSIONS;
        // one in every 100 attempts is the victim's, spread through the flood; the flood alone would fill any share
        Round r = round(victims * 100, n -> n % 100 == 50 ? victim : flood);
        System.out.println("flood: " + r.figures() + "; held by the flood " + r.heldBy().get(flood)
                + ", by the other principal " + r.heldBy().get(victim) + " of " + victims);
        assertEquals(victims, r.heldBy().get(victim), "every attempt of the other principal is held");
        assertTrue(r.heldBy().get(flood) <= MAX_USER_SESSIONS, "the flood keeps to its own share");
        assertQuiet();
    }

    /**
     * The thread count once the round's short-lived threads (channel readers ending, the common pool) are gone:
     * the lowest of ten reads 50 ms apart, so a sample is not a moment's spike.
     */
    private static long settledThreads(ThreadMXBean threads) throws InterruptedException {
        long lowest = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            lowest = Math.min(lowest, threads.getThreadCount());
            Thread.sleep(50);
        }
        return lowest;
    }

    /** The soak: rounds of the load for {@code objrdma.soak.seconds}, heap, threads and fds sampled and flat. */
    @Test
    @EnabledIfSystemProperty(named = "objrdma.soak.seconds", matches = "[0-9]+")
    void soak() throws Exception {
        long seconds = Long.getLong("objrdma.soak.seconds");
        long sampleEvery = TimeUnit.SECONDS.toNanos(Long.getLong("objrdma.soak.sample.seconds", 30));
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        List<long[]> samples = new ArrayList<>(); // {seconds, heap used after GC, threads, fds}
        long start = System.nanoTime();
        long end = start + TimeUnit.SECONDS.toNanos(seconds);
        long nextSample = start;
        LongAdder sessions = new LongAdder();
        int rounds = 0;
        while (System.nanoTime() < end) {
            Round r = round(Math.min(SESSIONS, 2_000), n -> principal(n % PRINCIPALS));
            sessions.add(r.held());
            rounds++;
            assertQuiet();
            events.bySession.clear(); // checked by the round; kept, they would be the test's own heap growth
            if (System.nanoTime() >= nextSample) {
                System.gc();
                long[] s = {TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start),
                    memory.getHeapMemoryUsage().getUsed(), settledThreads(threads), openFds()};
                samples.add(s);
                System.out.printf("soak: t=%ds heap=%d MiB threads=%d fds=%d rounds=%d sessions=%d (%s)%n", s[0],
                        s[1] >> 20, s[2], s[3], rounds, sessions.sum(), r.figures());
                nextSample += sampleEvery;
            }
        }
        SoakCheck.assertFlat(samples);
    }
}
