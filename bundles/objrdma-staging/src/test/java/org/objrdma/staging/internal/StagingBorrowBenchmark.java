package org.objrdma.staging.internal;

import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.pool2.BaseKeyedPooledObjectFactory;
import org.apache.commons.pool2.PooledObject;
import org.apache.commons.pool2.impl.DefaultPooledObject;
import org.apache.commons.pool2.impl.GenericKeyedObjectPool;
import org.apache.commons.pool2.impl.GenericKeyedObjectPoolConfig;
import org.objrdma.api.PrincipalId;
import org.objrdma.api.staging.StagingException;
import org.objrdma.api.staging.StagingLease;
import org.objrdma.api.telemetry.Telemetry;
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

/**
 * Latency of one borrow + release of a 4 KiB staging lease, next to two references measured in the same
 * run: a bare Commons Pool keyed borrow + return (the floor this design builds on) and a lock-free deque
 * poll + offer (the floor of any shared pool). Run by {@code bench.sh} through {@link StagingBenchmarkMain},
 * which prints p50 / p99 and the ratios; never by the unit tests.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx1g"})
public class StagingBorrowBenchmark {

    private static final long SIZE = 4096;

    /** The staging pool as deployed by default (zeroing on), and one with zeroing off. */
    @State(Scope.Benchmark)
    public static class Pools {
        BufferPool scrubbing;
        BufferPool plain;

        @Setup(Level.Trial)
        public void open() {
            scrubbing = BufferPool.create(settings(true), TestSupport.recordingTransport("bench"), () -> Telemetry.NOOP);
            plain = BufferPool.create(settings(false), TestSupport.recordingTransport("bench"), () -> Telemetry.NOOP);
        }

        private static StagingSettings settings(boolean scrub) {
            StagingSettings d = StagingSettings.defaults();
            return new StagingSettings(d.minBufferSize(), d.maxBufferSize(), d.maxTotalBytes(),
                    d.maxBytesPerPrincipal(), d.maxBuffersPerClass(), d.maxBuffersPerPrincipalPerClass(), 64, d.idleTimeout(), Duration.ofSeconds(10),
                    d.leaseDeadline(), d.leaseCheckPeriod(), false, d.shutdownTimeout(), scrub);
        }

        @TearDown(Level.Trial)
        public void close() {
            scrubbing.shutdown();
            plain.shutdown();
        }
    }

    /** The reference pools, holding plain objects. */
    @State(Scope.Benchmark)
    public static class References {
        GenericKeyedObjectPool<Long, Object> commonsPool;
        ConcurrentLinkedDeque<Object> deque;

        @Setup(Level.Trial)
        public void open() {
            GenericKeyedObjectPoolConfig<Object> config = new GenericKeyedObjectPoolConfig<>();
            config.setMaxTotalPerKey(-1);
            config.setMaxIdlePerKey(64);
            config.setJmxEnabled(false);
            commonsPool = new GenericKeyedObjectPool<>(new BaseKeyedPooledObjectFactory<>() {
                @Override
                public Object create(Long key) {
                    return new Object();
                }

                @Override
                public PooledObject<Object> wrap(Object value) {
                    return new DefaultPooledObject<>(value);
                }
            }, config);
            deque = new ConcurrentLinkedDeque<>();
            for (int i = 0; i < 64; i++) {
                deque.push(new Object());
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            commonsPool.close();
        }
    }

    /** Each benchmark thread borrows for a principal of its own, as sessions of different users would. */
    @State(Scope.Thread)
    public static class Caller {
        private static final AtomicInteger NEXT = new AtomicInteger();
        PrincipalId principal;
        final Long key = SIZE;

        @Setup(Level.Trial)
        public void pick() {
            principal = PrincipalId.fromCanonical("bench-" + NEXT.getAndIncrement());
        }
    }

    @Benchmark
    public long stagingBorrowRelease(Pools pools, Caller caller) throws StagingException {
        StagingLease lease = pools.scrubbing.borrow(SIZE, caller.principal, "bench");
        long address = lease.segment().address();
        lease.release();
        return address;
    }

    @Benchmark
    public long stagingBorrowReleaseNoScrub(Pools pools, Caller caller) throws StagingException {
        StagingLease lease = pools.plain.borrow(SIZE, caller.principal, "bench");
        long address = lease.segment().address();
        lease.release();
        return address;
    }

    @Benchmark
    public Object referenceCommonsPool(References refs, Caller caller) throws Exception {
        Object o = refs.commonsPool.borrowObject(caller.key);
        refs.commonsPool.returnObject(caller.key, o);
        return o;
    }

    @Benchmark
    public Object referenceDeque(References refs) {
        Object o = refs.deque.pollFirst();
        if (o == null) {
            o = new Object();
        }
        refs.deque.offerFirst(o);
        return o;
    }
}
