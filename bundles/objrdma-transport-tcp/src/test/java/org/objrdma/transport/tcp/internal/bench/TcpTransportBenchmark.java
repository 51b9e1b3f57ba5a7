package org.objrdma.transport.tcp.internal.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Access;
import org.objrdma.api.transport.RemoteRegion;
import org.objrdma.api.transport.BatchResult;
import org.objrdma.api.transport.Channel;
import org.objrdma.api.transport.ChannelOptions;
import org.objrdma.api.transport.MemoryRegion;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.transport.tcp.internal.TcpSettings;
import org.objrdma.transport.tcp.internal.TcpTransport;
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
 * One large WRITE or READ between two TCP transports over loopback, completed through the batch future
 * (the caller blocks instead of spinning, so on a small machine the benchmark thread does not steal the
 * CPU that the transport's reader and writer need). {@code bench.sh} runs it next to an iperf3 single
 * stream over the same loopback and prints the ratio.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx512m"})
public class TcpTransportBenchmark {

    /** Bytes per operation: 64 MiB. */
    @Param("67108864")
    public int size;

    /** frame.size of both transports. */
    @Param("4194304")
    public int frameSize;

    private TcpTransport requester;
    private TcpTransport responder;
    private Arena arena;
    private Channel channel;
    private Channel peerChannel;
    private MemoryRegion local;
    private MemoryRegion remote;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        TcpSettings settings = TcpSettings.loopbackDefaults().withFrameSize(frameSize);
        requester = TcpTransport.start(settings, () -> Telemetry.NOOP);
        responder = TcpTransport.start(settings, () -> Telemetry.NOOP);
        arena = Arena.ofShared();
        MemorySegment src = arena.allocate(size, 4096);
        MemorySegment dst = arena.allocate(size, 4096);
        src.fill((byte) 0x5A);
        dst.fill((byte) 0x3C);
        local = requester.register(src, EnumSet.of(Access.LOCAL_WRITE));
        remote = responder.register(dst, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
        channel = requester.openChannel(ChannelOptions.DEFAULT);
        peerChannel = responder.openChannel(ChannelOptions.DEFAULT);
        channel.connect(peerChannel.localEndpoint());
        peerChannel.connect(channel.localEndpoint());
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        channel.close();
        peerChannel.close();
        local.close();
        remote.close();
        requester.close();
        responder.close();
        arena.close();
    }

    @Benchmark
    public long write() {
        return run(WorkRequest.write(1, ScatterGatherEntry.of(local), new RemoteRegion(remote.address(), remote.length(), remote.rkey())));
    }

    @Benchmark
    public long read() {
        return run(WorkRequest.read(2, ScatterGatherEntry.of(local), new RemoteRegion(remote.address(), remote.length(), remote.rkey())));
    }

    private long run(WorkRequest request) {
        BatchResult r = channel.submit(List.of(request), Duration.ofSeconds(30)).join();
        if (!r.isSuccess()) {
            throw new IllegalStateException("transfer failed: " + r);
        }
        return r.bytesTransferred();
    }
}
