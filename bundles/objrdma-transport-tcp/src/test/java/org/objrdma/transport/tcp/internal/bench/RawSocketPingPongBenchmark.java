package org.objrdma.transport.tcp.internal.bench;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
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
 * The floor under a small transport operation: a ping-pong of two raw blocking {@link SocketChannel}s over
 * loopback shaped like a {@code size}-byte WRITE (the caller sends a 40-byte header and the payload from
 * native memory, a server thread reads both into native memory and answers a 40-byte acknowledgement the
 * caller waits for). No frames, no checks, no queues, no completion: what TCP and the JDK cost. The benchmark
 * table sets it beside {@link TcpTransportBenchmark#write} of the same size.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "-Xmx512m"})
public class RawSocketPingPongBenchmark {
    private static final int HEADER = 40;

    /** Payload bytes per round trip. */
    @Param("4096")
    public int size;

    private Arena arena;
    private ServerSocketChannel listener;
    private SocketChannel client;
    private SocketChannel server;
    private Thread echo;
    private ByteBuffer[] request;
    private ByteBuffer ack;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        arena = Arena.ofShared();
        listener = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        client = SocketChannel.open(listener.getLocalAddress());
        server = listener.accept();
        client.setOption(StandardSocketOptions.TCP_NODELAY, true);
        server.setOption(StandardSocketOptions.TCP_NODELAY, true);
        MemorySegment source = arena.allocate(size, 4096);
        source.fill((byte) 0x5A);
        request = new ByteBuffer[] {ByteBuffer.allocateDirect(HEADER), source.asByteBuffer()};
        ack = ByteBuffer.allocateDirect(HEADER);
        MemorySegment target = arena.allocate(size, 4096);
        echo = Thread.ofPlatform().daemon().name("raw-ping-pong-server").start(() -> serve(target));
    }

    private void serve(MemorySegment target) {
        ByteBuffer header = ByteBuffer.allocateDirect(HEADER);
        ByteBuffer payload = target.asByteBuffer();
        ByteBuffer reply = ByteBuffer.allocateDirect(HEADER);
        try {
            while (true) {
                header.clear();
                payload.clear();
                readFully(server, header);
                readFully(server, payload);
                reply.clear();
                while (reply.hasRemaining()) {
                    server.write(reply);
                }
            }
        } catch (IOException e) {
            // the client hung up: the trial is over
        }
    }

    private static void readFully(SocketChannel socket, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (socket.read(b) < 0) {
                throw new EOFException();
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        client.close();
        echo.join(5000);
        server.close();
        listener.close();
        arena.close();
    }

    /** One request out, its acknowledgement back. */
    @Benchmark
    public int pingPong() throws IOException {
        request[0].clear();
        request[1].clear();
        while (request[1].hasRemaining()) {
            client.write(request);
        }
        ack.clear();
        readFully(client, ack);
        return ack.position();
    }
}
