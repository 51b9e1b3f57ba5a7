package org.objrdma.session.internal.bench;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.session.Op;
import org.objrdma.api.session.PrepareRequest;
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
import org.objrdma.testsupport.FakeTransport;

/**
 * What one reaper pass costs with 100 000 idle sessions (none due), against the reference of visiting
 * the same number of entries of a concurrent map and reading one volatile field each: the scan design's
 * price, paid every {@code reaper.period.ms}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"})
public class ReaperScanBenchmark {
    static final int SESSIONS = 100_000;

    /** A map entry with the one field the reaper reads. */
    static final class Entry {
        volatile long deadline = Long.MAX_VALUE;
    }

    private SessionCore core;
    private SlabStagingPool pool;
    private final ConcurrentHashMap<Long, Entry> referenceTable = new ConcurrentHashMap<>();

    @Setup(Level.Trial)
    public void setUp() {
        FakeTransport transport = FakeTransport.builder("inert").channels(FakeTransport.ChannelMode.INERT)
                .recording(false).checkArguments(false).build();
        pool = new SlabStagingPool(transport, SESSIONS, 64);
        core = new SessionCore(SessionSettings.builder().allowAddresses("127.0.0.0/8, ::1").controlPlaneOnly(true).maxSessions(SESSIONS).maxUserSessions(SESSIONS)
                .maxQps(SESSIONS).maxUserQps(SESSIONS).prepTimeoutMs(SessionSettings.MAX_TIMEOUT_MS).build(),
                MonotonicClock.system(), RandomSource.secure());
        core.useTransport(transport);
        core.useStagingPool(pool);
        for (int i = 0; i < SESSIONS; i++) {
            core.prepare(new PrepareRequest(PrincipalId.fromCanonical("p" + (i % 100)), Op.GET, "/b/k", 0, 64, 1, 1,
                    null, null)).orElseThrow();
            referenceTable.put((long) i, new Entry());
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        core.shutdown(java.time.Duration.ofSeconds(5));
        pool.close();
    }

    @Benchmark
    public int reaperPass() {
        return core.reapPass();
    }

    @Benchmark
    public long reference() {
        long now = System.nanoTime();
        long due = 0;
        for (Entry e : referenceTable.values()) {
            if (e.deadline < now) {
                due++;
            }
        }
        return due;
    }
}
