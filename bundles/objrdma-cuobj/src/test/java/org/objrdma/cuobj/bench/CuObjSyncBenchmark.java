package org.objrdma.cuobj.bench;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.objrdma.api.session.Op;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.cuobj.RdmaBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Synchronous {@code handleGetObject} / {@code handlePutObject} of one size, next to the TCP transport's raw
 * WRITE / READ of the same size between the same memory, completed the same way (batch future). The ratio
 * facade / raw is the facade's overhead. {@code bench.sh} runs it and prints ops/s, GB/s and the ratios.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx512m"})
@Threads(1)
public class CuObjSyncBenchmark {

    @Param({"4096", "67108864"})
    public int size;

    private BenchRig rig;
    private RdmaBuffer buffer;
    private int channel;
    private String getDescriptor;
    private String putDescriptor;
    private long remote;
    private WorkRequest rawWrite;
    private WorkRequest rawRead;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        rig = new BenchRig(size, 1);
        channel = rig.server.allocateChannelId();
        buffer = rig.server.registerBuffer(rig.serverMemory, size);
        getDescriptor = rig.descriptor(Op.GET, 0, size, 0);
        putDescriptor = rig.descriptor(Op.PUT, 0, size, 0);
        remote = rig.clientAddress(0);
        ScatterGatherEntry local = ScatterGatherEntry.of(rig.serverRegion);
        rawWrite = WorkRequest.write(1, local, rig.rawRemote(0, 0, size));
        rawRead = WorkRequest.read(2, local, rig.rawRemote(0, 0, size));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        rig.close();
    }

    @Benchmark
    public long facadeGet() {
        return check(rig.server.handleGetObject("bench", buffer, remote, size, getDescriptor, channel));
    }

    @Benchmark
    public long facadePut() {
        return check(rig.server.handlePutObject("bench", buffer, remote, size, putDescriptor, channel));
    }

    @Benchmark
    public long rawWrite() {
        var r = rig.rawServerChannels[0].submit(BenchRig.one(rawWrite), Duration.ofSeconds(60)).join();
        BenchRig.check(r);
        return r.bytesTransferred();
    }

    @Benchmark
    public long rawRead() {
        var r = rig.rawServerChannels[0].submit(BenchRig.one(rawRead), Duration.ofSeconds(60)).join();
        BenchRig.check(r);
        return r.bytesTransferred();
    }

    private long check(long r) {
        if (r != size) {
            throw new IllegalStateException("facade transfer returned " + r);
        }
        return r;
    }
}
