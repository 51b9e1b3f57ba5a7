package org.objrdma.verbs.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.Completion;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.Transport;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.verbs.internal.ComponentFixture;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * One RDMA WRITE posted and its completion polled through the verbs transport on the software device,
 * next to {@link MemorySegment#copy} of the same bytes between the same two buffers: the software device's
 * WRITE is a memcpy, so the copy is the floor and the difference is what the Java data path (FFM downcalls,
 * work-request fill, completion routing) costs. Both run cache-hot, in the same fork.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class VerbsWriteBenchmark {

    @Param({"64", "1048576"})
    int size;

    private ComponentFixture fixture;
    private Arena arena;
    private Channel requester;
    private Channel responder;
    private MemorySegment source;
    private MemorySegment target;
    private WorkRequest write;
    private final Completion[] out = new Completion[1];

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        fixture = ComponentFixture.software();
        Transport transport = fixture.transport();
        arena = Arena.ofShared();
        source = arena.allocate(size, 4096);
        target = arena.allocate(size, 4096);
        source.fill((byte) 1);
        MemoryRegion src = transport.register(source, Set.of(Access.LOCAL_WRITE));
        MemoryRegion dst = transport.register(target, Set.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        requester = transport.openChannel(ChannelOptions.DEFAULT);
        responder = transport.openChannel(ChannelOptions.DEFAULT);
        requester.connect(responder.localEndpoint());
        responder.connect(requester.localEndpoint());
        write = WorkRequest.write(1, ScatterGatherEntry.of(src), new RemoteRegion(dst.address(), dst.length(), dst.rkey()));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        fixture.close();
        arena.close();
    }

    @Benchmark
    public Completion verbsWritePostPoll() throws Exception {
        requester.post(write);
        while (requester.poll(out) == 0) {
            Thread.onSpinWait();
        }
        if (!out[0].isSuccess()) {
            throw new IllegalStateException("write failed: " + out[0]);
        }
        return out[0];
    }

    @Benchmark
    public MemorySegment segmentCopy() {
        MemorySegment.copy(source, 0, target, 0, size);
        return target;
    }
}
