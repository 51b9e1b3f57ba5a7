package org.objrdma.cli;

import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
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
 * not counted. The GETs read back what the PUTs wrote and are checked against it (CRC32C).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Repeats PUT and GET of an object of --size; prints ops/s and bytes/s.")
final class BenchCommand implements Callable<Integer> {
    @ParentCommand
    Main main;
    @Mixin
    CommonOptions options;
    @Parameters(index = "0", paramLabel = "s3://BUCKET/KEY", description = "the object written and read (overwritten)")
    String target;
    @Option(names = "--size", paramLabel = "SIZE", defaultValue = "4MiB", converter = CommonOptions.SizeConverter.class,
            description = "object size, 1B..1GiB (default: ${DEFAULT-VALUE})")
    long size;
    @Option(names = "--count", paramLabel = "N", defaultValue = "20", description = "timed ops per operation"
            + " (default: ${DEFAULT-VALUE})")
    int count;
    @Option(names = "--op", paramLabel = "put|get|both", defaultValue = "both", description = "default: ${DEFAULT-VALUE}")
    String op;

    @Override
    public Integer call() throws Exception {
        S3Uri uri = S3Uri.parse(target);
        if (size < 1 || size > FileTransfers.MAX_CHUNK) {
            throw new UserError(ExitCodes.USAGE, "--size must be 1B.." + Sizes.human(FileTransfers.MAX_CHUNK));
        }
        if (count < 1) {
            throw new UserError(ExitCodes.USAGE, "--count must be at least 1");
        }
        boolean put = op.equals("put") || op.equals("both");
        boolean get = op.equals("get") || op.equals("both");
        if (!put && !get) {
            throw new UserError(ExitCodes.USAGE, "--op must be put, get or both, was '" + op + "'");
        }
        ClientConfig config = ClientConfig.resolve(options.flags(), main.env);
        try (Connection c = Connection.open(config, options.protocol, options.bindAddress, options.rdmaMinBytes);
                ClientMemory mem = c.memory(size)) {
            byte[] data = new byte[(int) Math.min(size, 1 << 20)];
            new Random(size).nextBytes(data);
            for (long at = 0; at < size; at += data.length) {
                java.lang.foreign.MemorySegment.copy(data, 0, mem.segment(), java.lang.foreign.ValueLayout.JAVA_BYTE,
                        at, (int) Math.min(data.length, size - at));
            }
            long crc = mem.crc32c(0, size);
            PutObjectRequest putRequest = PutObjectRequest.builder().bucket(uri.bucket()).key(uri.key()).build();
            GetObjectRequest getRequest = GetObjectRequest.builder().bucket(uri.bucket()).key(uri.key())
                    .range("bytes=0-" + (size - 1)).build();
            if (put) {
                run(c, "PUT", () -> c.rdma.putObject(putRequest, mem, 0, size));
            } else {
                c.rdma.putObject(putRequest, mem, 0, size); // the object the GETs read
            }
            if (get) {
                mem.segment().fill((byte) 0);
                run(c, "GET", () -> c.rdma.getObject(getRequest, mem, 0));
                if (mem.crc32c(0, size) != crc) {
                    throw new UserError(ExitCodes.FAILED, "the GETs read other bytes than were written (CRC32C)");
                }
            }
        }
        return ExitCodes.OK;
    }

    private interface Op {
        RdmaResult<?> once();
    }

    private void run(Connection c, String name, Op op) {
        Set<RdmaProtocol> paths = EnumSet.noneOf(RdmaProtocol.class);
        Set<String> declines = new LinkedHashSet<>();
        FileTransfers.note(op.once(), paths, declines); // warm-up
        Progress progress = new Progress(main.err, !options.noProgress && Progress.terminal(), count);
        long start = System.nanoTime();
        for (int i = 0; i < count; i++) {
            FileTransfers.note(op.once(), paths, declines);
            progress.update(i + 1);
        }
        long nanos = System.nanoTime() - start;
        progress.done();
        for (String d : declines) {
            main.err.println("objrdma: warning: " + d + "; moved over HTTP");
        }
        double seconds = nanos / 1e9;
        main.out.println(String.format(Locale.ROOT, "%s %d B x %d over %s: %.1f ops/s, %s/s (%.0f bytes/s), %.3f ms/op",
                name, size, count, paths.stream().map(RdmaProtocol::label).collect(Collectors.joining("+")),
                count / seconds, Sizes.human(size * count / seconds), size * count / seconds, seconds * 1000 / count));
    }
}
