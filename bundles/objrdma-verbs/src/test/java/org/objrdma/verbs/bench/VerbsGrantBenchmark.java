package org.objrdma.verbs.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.MemoryGrant;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.Transport;
import org.objrdma.verbs.internal.ComponentFixture;
import org.objrdma.verbs.testsupport.SoftVerbs;
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
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * What a session pays for its grant on the verbs transport over the software device: {@link Channel#grant} and
 * {@link MemoryGrant#revoke} of a 64 KiB slice on a connected channel, with memory windows (a BIND_MW and a
 * LOCAL_INV work request, each posted and polled) and without (a slice registration and its deregistration),
 * next to registering and closing the slice as a region, in the same run. The software device executes work
 * requests in {@code post_send}, so this is the Java and FFM cost, not a NIC's.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class VerbsGrantBenchmark {
    private static final long SLICE = 64 * 1024;
    private static final Set<Access> REMOTE = EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE);

    /** True: type-2 memory windows; false: the device without them, so grants register their slice. */
    @Param({"true", "false"})
    boolean windows;

    private boolean windowsBefore;
    private ComponentFixture fixture;
    private Arena arena;
    private Transport transport;
    private Channel channel;
    private Channel peerChannel;
    private MemoryRegion staging;
    private MemorySegment slice;
    private long next;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        windowsBefore = SoftVerbs.setMemoryWindows(windows);
        fixture = ComponentFixture.software();
        transport = fixture.transport();
        arena = Arena.ofShared();
        MemorySegment memory = arena.allocate(16 * SLICE, 4096);
        staging = transport.register(memory, EnumSet.of(Access.LOCAL_WRITE));
        slice = memory.asSlice(0, SLICE);
        channel = transport.openChannel(ChannelOptions.DEFAULT);
        peerChannel = transport.openChannel(ChannelOptions.DEFAULT);
        channel.connect(peerChannel.localEndpoint());
        peerChannel.connect(channel.localEndpoint());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        fixture.close();
        arena.close();
        SoftVerbs.setMemoryWindows(windowsBefore);
    }

    @Benchmark
    public int grantAndRevoke() throws Exception {
        long offset = (next++ & 15) * SLICE;
        MemoryGrant g = peerChannel.grant(staging, offset, SLICE, REMOTE);
        int rkey = g.rkey();
        g.revoke();
        return rkey;
    }

    @Benchmark
    public int registerAndCloseSlice() throws Exception {
        MemoryRegion r = transport.register(slice, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ,
                Access.REMOTE_WRITE));
        int rkey = r.rkey();
        r.close();
        return rkey;
    }

    public static void main(String[] args) throws Exception {
        System.out.println();
        for (RunResult r : new Runner(new OptionsBuilder().parent(new CommandLineOptions(args))
                .include(VerbsGrantBenchmark.class.getName() + "\\.").build()).run()) {
            String bench = r.getParams().getBenchmark();
            System.out.printf(Locale.ROOT, "verbs (softverbs) windows=%s %s %.0f ns/op%n",
                    r.getParams().getParam("windows"), bench.substring(bench.lastIndexOf('.') + 1),
                    r.getPrimaryResult().getScore());
        }
    }
}
