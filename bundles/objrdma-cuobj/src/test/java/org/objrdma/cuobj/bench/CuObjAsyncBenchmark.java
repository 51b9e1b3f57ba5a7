package org.objrdma.cuobj.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.objrdma.api.session.Op;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.cuobj.CuObjAsyncEvent;
import org.objrdma.cuobj.RdmaBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Asynchronous transfers: 4 threads, each on its own facade channel and client lane, keep 16 requests
 * outstanding per round (submit 16, poll until 16 completed). The reference does the same with raw WRITEs /
 * READs on a raw channel per thread (16 submits, then wait for all). Both sides block while waiting (the facade
 * in {@code pollWait}, the reference in {@code join}). Scores are transfers per second.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx512m"})
@Threads(CuObjAsyncBenchmark.THREADS)
public class CuObjAsyncBenchmark {
    static final int THREADS = 4;
    static final int DEPTH = 16;
    static final Duration WAIT = Duration.ofSeconds(60);

    @Param({"4096", "1048576"})
    public int size;

    BenchRig rig;
    private final AtomicInteger nextLane = new AtomicInteger();

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        rig = new BenchRig((long) THREADS * DEPTH * size, THREADS);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        rig.close();
    }

    /** One worker: its channel, lane, slice of memory and reusable arrays. */
    @State(Scope.Thread)
    public static class Worker {
        int lane;
        int channel;
        RdmaBuffer buffer;
        String getDescriptor;
        String putDescriptor;
        long remote;
        final CuObjAsyncEvent[] events = new CuObjAsyncEvent[DEPTH];
        final Integer[] handles = new Integer[DEPTH];
        List<WorkRequest> rawWrites;
        List<WorkRequest> rawReads;
        Channel raw;

        @Setup(Level.Trial)
        public void setUp(CuObjAsyncBenchmark b) throws Exception {
            lane = b.nextLane.getAndIncrement();
            long slice = (long) DEPTH * b.size;
            long base = lane * slice;
            channel = b.rig.server.allocateChannelId();
            buffer = b.rig.server.registerBuffer(b.rig.serverMemory.asSlice(base, slice), slice);
            getDescriptor = b.rig.descriptor(Op.GET, base, slice, lane);
            putDescriptor = b.rig.descriptor(Op.PUT, base, slice, lane);
            remote = b.rig.clientAddress(base);
            rawWrites = new ArrayList<>();
            rawReads = new ArrayList<>();
            for (int i = 0; i < DEPTH; i++) {
                handles[i] = i;
                long off = base + (long) i * b.size;
                ScatterGatherEntry local = new ScatterGatherEntry(b.rig.serverRegion, off, b.size);
                rawWrites.add(WorkRequest.write(i, local, b.rig.rawRemote(lane, off, b.size)));
                rawReads.add(WorkRequest.read(i, local, b.rig.rawRemote(lane, off, b.size)));
            }
            raw = b.rig.rawServerChannels[lane];
        }
    }

    @Benchmark
    @OperationsPerInvocation(DEPTH)
    public int facadeGetAsync(Worker w) {
        return facade(w, true);
    }

    @Benchmark
    @OperationsPerInvocation(DEPTH)
    public int facadePutAsync(Worker w) {
        return facade(w, false);
    }

    @Benchmark
    @OperationsPerInvocation(DEPTH)
    public long rawWriteAsync(Worker w) {
        return raw(w, w.rawWrites);
    }

    @Benchmark
    @OperationsPerInvocation(DEPTH)
    public long rawReadAsync(Worker w) {
        return raw(w, w.rawReads);
    }

    private int facade(Worker w, boolean get) {
        for (int i = 0; i < DEPTH; i++) {
            long off = (long) i * size;
            long r = get
                    ? rig.server.handleGetObject("a", w.buffer, w.remote + off, size, w.getDescriptor, w.channel, off,
                            null, w.handles[i])
                    : rig.server.handlePutObject("a", w.buffer, w.remote + off, size, w.putDescriptor, w.channel, off,
                            null, w.handles[i]);
            if (r != 0) {
                throw new IllegalStateException("async submit returned " + r);
            }
        }
        int done = 0;
        while (done < DEPTH) {
            // pollWait, not a spinning poll loop: on 2 cores a spinner takes the CPU the transport threads need
            int n = rig.server.pollWait(w.events, DEPTH, w.channel, WAIT);
            if (n <= 0) {
                throw new IllegalStateException("poll returned " + n);
            }
            done += n;
        }
        return done;
    }

    private long raw(Worker w, List<WorkRequest> requests) {
        List<CompletableFuture<BatchResult>> futures = new ArrayList<>(DEPTH);
        for (WorkRequest wr : requests) {
            futures.add(w.raw.submit(BenchRig.one(wr), Duration.ofSeconds(60)));
        }
        long bytes = 0;
        for (CompletableFuture<BatchResult> f : futures) {
            BatchResult r = f.join();
            BenchRig.check(r);
            bytes += r.bytesTransferred();
        }
        return bytes;
    }
}
