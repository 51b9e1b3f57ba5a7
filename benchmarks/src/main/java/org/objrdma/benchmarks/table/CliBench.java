package org.objrdma.benchmarks.table;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One run of the distribution's own client, {@code bin/objrdma bench}, in a JVM of its own as a user runs it:
 * {@code --clients} concurrent clients (each its own connection, memory agent, buffer and object) PUT then GET an
 * object of {@code --size}, {@code --count} timed ops each, after one warm-up op each. With {@code --marks} the
 * client prints {@code begin PUT} / {@code begin GET} right before each timed phase; the server's CPU time is read
 * when that line arrives and again when the phase's result line does, so the figure covers the timed ops (and the
 * milliseconds the line takes through the pipe), not the JVM start, the warm-ups or the untimed set-up.
 */
final class CliBench {
    /** {@code PUT 4096 B x 100 by 8 clients over rc: 812.3 ops/s, 3.2 MiB/s (3327181 bytes/s), 1.231 ms/op}. */
    private static final Pattern RESULT = Pattern.compile(
            "^(PUT|GET) (\\d+) B x (\\d+)(?: by (\\d+) clients)? over ([a-z+]+): ([0-9.]+) ops/s, .* \\(([0-9]+) bytes/s\\),.*$");

    /** One timed phase: its rates, the path the client reports, and the server CPU seconds it cost (NaN: unknown). */
    record Phase(String op, double opsPerSecond, double bytesPerSecond, String path, long bytesMoved,
            double serverCpuSeconds) {
        /** Server CPU seconds per GiB moved (NaN when the server's CPU was not read). */
        double cpuPerGiB() {
            return serverCpuSeconds / (bytesMoved / (double) (1L << 30));
        }
    }

    private CliBench() {
    }

    /**
     * Runs {@code bin/objrdma bench} of {@code home} against {@code endpoint}; returns the PUT and GET phases by
     * operation. {@code server} may be null (no CPU figure).
     */
    static Map<String, Phase> run(Path home, URI endpoint, String accessKey, String secretKey, String protocol,
            String bucket, String key, long size, int count, int clients, ProcessCpu server, Path log)
            throws IOException, InterruptedException {
        List<String> command = List.of(home.resolve("bin/objrdma").toString(), "bench", "s3://" + bucket + "/" + key,
                "--size", Long.toString(size), "--count", Integer.toString(count), "--clients",
                Integer.toString(clients), "--protocol", protocol, "--marks", "--no-progress", "--endpoint-url",
                endpoint.toString(),
                // an RDMA row measures the RDMA path at every size: the CLI's own crossover (plain HTTP below
                // RdmaS3.DEFAULT_MIN_BYTES) would turn the small rows into plain-HTTP rows
                "--rdma-min-bytes", "1");
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Map<String, String> env = pb.environment();
        env.put("AWS_ACCESS_KEY_ID", accessKey);
        env.put("AWS_SECRET_ACCESS_KEY", secretKey);
        env.put("AWS_REGION", "us-east-1");
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("HOME", log.getParent().toString()); // no ~/.aws of the user's in the way
        env.remove("AWS_PROFILE");
        Process p = pb.start();
        p.getOutputStream().close();
        Map<String, Phase> phases = new LinkedHashMap<>();
        List<String> printed = new ArrayList<>();
        double cpuAtBegin = Double.NaN;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                printed.add(line);
                if (line.startsWith("begin ")) {
                    cpuAtBegin = server == null ? Double.NaN : server.seconds();
                    continue;
                }
                if (RESULT.matcher(line).matches()) {
                    Phase phase = parse(line, server == null ? Double.NaN : server.seconds() - cpuAtBegin);
                    phases.put(phase.op(), phase);
                }
            }
        }
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("bin/objrdma bench --protocol " + protocol + " --size " + size + " --clients "
                    + clients + " failed (exit " + (p.isAlive() ? "timeout" : p.exitValue()) + "), see " + log
                    + "; it printed " + printed);
        }
        if (!phases.containsKey("PUT") || !phases.containsKey("GET")) {
            throw new IOException("bin/objrdma bench printed no PUT and GET figures: " + printed);
        }
        return phases;
    }

    /**
     * The phase a result line of {@code bin/objrdma bench} reports, with the server CPU seconds measured around it;
     * throws when the line is no result line.
     */
    static Phase parse(String line, double serverCpuSeconds) {
        Matcher m = RESULT.matcher(line);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a bin/objrdma bench result line: " + line);
        }
        long moved = Long.parseLong(m.group(2)) * Long.parseLong(m.group(3))
                * (m.group(4) == null ? 1 : Long.parseLong(m.group(4)));
        return new Phase(m.group(1), Double.parseDouble(m.group(6)), Double.parseDouble(m.group(7)), m.group(5), moved,
                serverCpuSeconds);
    }
}
