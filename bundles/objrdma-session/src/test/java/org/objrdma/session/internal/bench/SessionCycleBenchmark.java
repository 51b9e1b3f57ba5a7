package org.objrdma.session.internal.bench;

import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
import org.objrdma.api.session.ReadyRequest;
import org.objrdma.api.session.SessionBuffer;
import org.objrdma.api.session.SessionId;
import org.objrdma.session.internal.MonotonicClock;
import org.objrdma.session.internal.RandomSource;
import org.objrdma.session.internal.SessionCore;
import org.objrdma.session.internal.SessionSettings;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Whole session cycles per second, in process, control-plane only (no bytes move), on a transport and a
 * pool that cost nothing, so the numbers are the session core's. {@link #reference} is what any session
 * table must do per session at the least (a 128-bit random id, hex, one map insert and remove); the
 * ratios bench.sh prints are against it.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx1g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
public class SessionCycleBenchmark {
    private static final PrincipalId PRINCIPAL = PrincipalId.fromCanonical("bench:secret");
    private static final int SIZE = 4096;
    private static final int COOKIE = 0x5eed;

    private SessionCore core;
    private SlabStagingPool pool;
    private final ConcurrentHashMap<SessionId, Object> referenceTable = new ConcurrentHashMap<>();
    private final RandomSource referenceRandom = RandomSource.secure();

    private org.objrdma.transport.tcp.internal.TcpTransport tcp;

    /**
     * The real TCP transport: every cycle opens and closes a real channel, and a PUT cycle makes a real grant of
     * its staging slot on it (in INIT) and revokes it at teardown — the cost a session pays for grants.
     */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        tcp = org.objrdma.transport.tcp.internal.TcpTransport.start(
                org.objrdma.transport.tcp.internal.TcpSettings.loopbackDefaults(),
                () -> org.objrdma.api.telemetry.Telemetry.NOOP);
        org.objrdma.api.transport.Transport transport = tcp;
        pool = new SlabStagingPool(transport, 1024, SIZE);
        core = new SessionCore(SessionSettings.builder().allowAddresses("127.0.0.0/8, ::1").controlPlaneOnly(true).maxSessions(1024).maxUserSessions(1024).maxQps(1024)
                .maxUserQps(1024).build(), MonotonicClock.system(), RandomSource.secure());
        core.useTransport(transport);
        core.useStagingPool(pool);
        core.startReaper();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        core.shutdown(java.time.Duration.ofSeconds(1));
        pool.close();
        tcp.close();
    }

    /** PREPARE, borrow and finish staging, commit, READY, finish_final. */
    @Benchmark
    public void getCycle(Blackhole bh) {
        SessionId id = core.prepare(new PrepareRequest(PRINCIPAL, Op.GET, "/bench/object", 0, SIZE, 1, COOKIE,
                null, null)).orElseThrow().sessionId();
        SessionBuffer lease = core.borrowStaging(id).orElseThrow();
        bh.consume(core.finishStaging(id, lease.handle(), true, SIZE, "etag", ""));
        bh.consume(core.finishPrepare(id, true));
        bh.consume(core.readyTransfer(new ReadyRequest(PRINCIPAL, id, COOKIE, 1, null)).orElseThrow());
        bh.consume(core.finishFinal(id));
    }

    /**
     * PREPARE (which grants the staging slot to the session's channel), commit, READY, finish_final (which revokes
     * it). A control-plane-only PUT can never be committed (get_put_data is STATE since issue 11), so the cycle
     * ends with finish_final.
     */
    @Benchmark
    public void putCycle(Blackhole bh) {
        SessionId id = core.prepare(new PrepareRequest(PRINCIPAL, Op.PUT, "/bench/object", 0, SIZE, 1, COOKIE,
                null, null)).orElseThrow().sessionId();
        bh.consume(core.finishPrepare(id, true));
        bh.consume(core.readyTransfer(new ReadyRequest(PRINCIPAL, id, COOKIE, 1, null)).orElseThrow());
        bh.consume(core.finishFinal(id));
    }

    /** The floor: a random 128-bit id in hex, inserted into and removed from a concurrent map. */
    @Benchmark
    public void reference(Blackhole bh) {
        byte[] bits = new byte[16];
        referenceRandom.nextBytes(bits);
        SessionId id = new SessionId(HexFormat.of().formatHex(bits));
        referenceTable.put(id, bits);
        bh.consume(referenceTable.remove(id));
    }
}
