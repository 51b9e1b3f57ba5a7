package org.objrdma.benchmarks.table;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The TCP transport against the wire: 64 MiB WRITE and READ ({@code TcpTransportBenchmark}) against an iperf3
 * single stream over the same loopback (before and after the JMH run; their mean is the reference), and a 4 KiB
 * WRITE against a raw {@code SocketChannel} ping-pong of the same shape ({@code RawSocketPingPongBenchmark}).
 */
final class TransportRows {
    private static final String TCP = "org.objrdma.transport.tcp.internal.bench.TcpTransportBenchmark";
    private static final String RAW = "org.objrdma.transport.tcp.internal.bench.RawSocketPingPongBenchmark";
    private static final Pattern IPERF_BPS = Pattern.compile("\"sum_received\"\\s*:\\s*\\{[^}]*?\"bits_per_second\"\\s*:\\s*([0-9.eE+]+)");

    private TransportRows() {
    }

    static List<Row> measure(Jmh jmh, boolean quick, Path out) throws Exception {
        int seconds = quick ? 1 : 3;
        double before = iperf3(seconds, out);
        Jmh.Results large = jmh.run(TCP, "write|read", Map.of("size", new String[] {"67108864"}), 1);
        double after = iperf3(seconds, out);
        double wire = (before + after) / 2;
        double size = 64.0 * (1 << 20);
        // AverageTime in ms per 64 MiB operation
        double write = size / (large.score("write") / 1e3) / 1e9;
        double read = size / (large.score("read") / 1e3) / 1e9;
        String ref = String.format(java.util.Locale.ROOT, "iperf3 1 stream (%.2f before, %.2f after)", before, after);
        Jmh.Results small = jmh.run(TCP, "write", Map.of("size", new String[] {"4096"}), 1);
        Jmh.Results pingPong = jmh.run(RAW, "pingPong", Map.of("size", new String[] {"4096"}), 1);
        double smallOps = 1e3 / small.score("write"); // ms/op -> ops/s
        double rawOps = 1e6 / pingPong.score("pingPong"); // us/op -> ops/s
        return List.of(
                Row.rate("TCP transport WRITE", "64 MiB", write, "GB/s", ref, wire, 0.95, ""),
                Row.rate("TCP transport READ", "64 MiB", read, "GB/s", ref, wire, 0.95, ""),
                Row.rate("TCP transport WRITE, one at a time", "4 KiB", smallOps, "ops/s",
                        "raw SocketChannel ping-pong", rawOps, 0.8, ""));
    }

    /** One single-stream loopback run of {@code seconds}; GB/s (10^9 bytes) received. */
    static double iperf3(int seconds, Path out) throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path log = out.resolve("iperf3.log");
        Process server = new ProcessBuilder("iperf3", "-s", "-1", "-p", String.valueOf(port))
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        try {
            List<String> json = null;
            IOException last = null;
            for (int attempt = 0; attempt < 50 && json == null; attempt++) {
                Thread.sleep(100); // until the server listens
                try {
                    json = ChildProcess.run(log, List.of("iperf3", "-c", "127.0.0.1", "-p", String.valueOf(port),
                            "-t", String.valueOf(seconds), "-J"));
                } catch (IOException e) {
                    last = e;
                }
            }
            if (json == null) {
                throw last;
            }
            Matcher m = IPERF_BPS.matcher(String.join("\n", json));
            if (!m.find()) {
                throw new IOException("iperf3 printed no sum_received, see " + log);
            }
            return Double.parseDouble(m.group(1)) / 8 / 1e9;
        } finally {
            server.destroy();
        }
    }
}
