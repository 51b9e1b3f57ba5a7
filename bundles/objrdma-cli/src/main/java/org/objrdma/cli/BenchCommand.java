package org.objrdma.cli;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.objrdma.client.ClientMemory;
import org.objrdma.client.sdk.RdmaProtocol;
import org.objrdma.client.sdk.RdmaResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * Repeats PUT and/or GET of one object of a given size from one registered buffer and prints ops/s and bytes/s per
 * operation (control plane included: every op is a whole S3 request or PREPARE/READY pair). One warm-up op first,
 * not counted. The GETs read back what the PUTs wrote and are checked against it (CRC32C). With {@code --clients N}
 * N clients run at once, each with a connection, memory agent, buffer and object of its own (KEY.c1 .. KEY.cN), as N
 * users would; the figures are of all of them together over the wall time of the timed ops. {@code --marks} prints
 * {@code begin OP} just before each timed phase (after the warm-ups), so a harness can sample the server's CPU time
 * around exactly the timed ops (benchmarks/README.md).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Repeats PUT and GET of an object of --size; prints ops/s and bytes/s.")
final class BenchCommand implements Callable<Integer> {
    static final int MAX_CLIENTS = 64;

    @ParentCommand
    Main main;
    @Mixin
    CommonOptions options;
    @Parameters(index = "0", paramLabel = "s3://BUCKET/KEY", description = "the object written and read (overwritten);"
            + " with --clients N > 1 the objects KEY.c1 .. KEY.cN")
    String target;
    @Option(names = "--size", paramLabel = "SIZE", defaultValue = "4MiB", converter = CommonOptions.SizeConverter.class,
            description = "object size, 1B..1GiB (default: ${DEFAULT-VALUE})")
    long size;
    @Option(names = "--count", paramLabel = "N", defaultValue = "20", description = "timed ops per operation and client"
            + " (default: ${DEFAULT-VALUE})")
    int count;
    @Option(names = "--op", paramLabel = "put|get|both", defaultValue = "both", description = "default: ${DEFAULT-VALUE}")
    String op;
    @Option(names = "--clients", paramLabel = "N", defaultValue = "1", description = "concurrent clients, 1.."
            + MAX_CLIENTS + ", each with its own connection, buffer and object (default: ${DEFAULT-VALUE})")
    int clients;
    @Option(names = "--marks", description = "print 'begin PUT' / 'begin GET' on stdout right before each timed phase")
    boolean marks;

    /** One client: its connection, registered buffer, object and the CRC32C of what it writes. */
    private record Client(Connection connection, ClientMemory memory, PutObjectRequest put, GetObjectRequest get,
            long crc) implements AutoCloseable {
        @Override
        public void close() {
            memory.close();
            connection.close();
        }
    }

    @Override
    public Integer call() throws Exception {
        S3Uri uri = S3Uri.parse(target);
        if (size < 1 || size > FileTransfers.MAX_CHUNK) {
            throw new UserError(ExitCodes.USAGE, "--size must be 1B.." + Sizes.human(FileTransfers.MAX_CHUNK));
        }
        if (count < 1) {
            throw new UserError(ExitCodes.USAGE, "--count must be at least 1");
        }
        if (clients < 1 || clients > MAX_CLIENTS) {
            throw new UserError(ExitCodes.USAGE, "--clients must be 1.." + MAX_CLIENTS + ", was " + clients);
        }
        boolean put = op.equals("put") || op.equals("both");
        boolean get = op.equals("get") || op.equals("both");
        if (!put && !get) {
            throw new UserError(ExitCodes.USAGE, "--op must be put, get or both, was '" + op + "'");
        }
        ClientConfig config = ClientConfig.resolve(options.flags(), main.env);
        List<Client> all = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            for (int i = 1; i <= clients; i++) {
                all.add(open(config, uri.bucket(), clients == 1 ? uri.key() : uri.key() + ".c" + i));
            }
            if (put) {
                run(pool, all, "PUT", c -> c.connection().rdma.putObject(c.put(), c.memory(), 0, size));
            } else {
                for (Client c : all) {
                    c.connection().rdma.putObject(c.put(), c.memory(), 0, size); // the object the GETs read
                }
            }
            if (get) {
                for (Client c : all) {
                    c.memory().segment().fill((byte) 0);
                }
                run(pool, all, "GET", c -> c.connection().rdma.getObject(c.get(), c.memory(), 0));
                for (Client c : all) {
                    if (c.memory().crc32c(0, size) != c.crc()) {
                        throw new UserError(ExitCodes.FAILED, "the GETs of " + c.get().key()
                                + " read other bytes than were written (CRC32C)");
                    }
                }
            }
        } finally {
            pool.shutdownNow();
            all.forEach(Client::close);
        }
        return ExitCodes.OK;
    }

    private Client open(ClientConfig config, String bucket, String key) throws UserError, IOException {
        Connection c = Connection.open(config, options.protocol, options.bindAddress, options.rdmaMinBytes);
        try {
            ClientMemory mem = c.memory(size);
            byte[] data = new byte[(int) Math.min(size, 1 << 20)];
            new Random(size ^ key.hashCode()).nextBytes(data);
            for (long at = 0; at < size; at += data.length) {
                MemorySegment.copy(data, 0, mem.segment(), ValueLayout.JAVA_BYTE, at,
                        (int) Math.min(data.length, size - at));
            }
            return new Client(c, mem, PutObjectRequest.builder().bucket(bucket).key(key).build(),
                    GetObjectRequest.builder().bucket(bucket).key(key).range("bytes=0-" + (size - 1)).build(),
                    mem.crc32c(0, size));
        } catch (UserError | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private interface Op {
        RdmaResult<?> once(Client c);
    }

    private void run(ExecutorService pool, List<Client> all, String name, Op op) throws Exception {
        Set<RdmaProtocol> paths = ConcurrentHashMap.newKeySet();
        Set<String> declines = ConcurrentHashMap.newKeySet();
        for (Client c : all) {
            FileTransfers.note(op.once(c), paths, declines); // warm-up
        }
        Progress progress = new Progress(main.err, !options.noProgress && Progress.terminal() && clients == 1, count);
        if (marks) {
            main.out.println("begin " + name);
            main.out.flush();
        }
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> running = new ArrayList<>();
        for (Client c : all) {
            running.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < count; i++) {
                    FileTransfers.note(op.once(c), paths, declines);
                    if (clients == 1) {
                        progress.update(i + 1);
                    }
                }
                return null;
            }));
        }
        long start = System.nanoTime();
        go.countDown();
        for (Future<?> f : running) {
            try {
                f.get();
            } catch (ExecutionException e) {
                running.forEach(r -> r.cancel(true));
                throw e.getCause() instanceof Exception cause ? cause : e;
            }
        }
        long nanos = System.nanoTime() - start;
        progress.done();
        for (String d : declines) {
            main.err.println("objrdma: warning: " + d + "; moved over HTTP");
        }
        double seconds = nanos / 1e9;
        long ops = (long) count * clients;
        main.out.println(String.format(Locale.ROOT, "%s %d B x %d%s over %s: %.1f ops/s, %s/s (%.0f bytes/s), %.3f ms/op",
                name, size, count, clients == 1 ? "" : " by " + clients + " clients",
                paths.stream().sorted().map(RdmaProtocol::label).collect(Collectors.joining("+")),
                ops / seconds, Sizes.human(size * ops / seconds), size * ops / seconds, seconds * 1000 / count));
    }
}
