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
import org.objrdma.benchmarks.S3Bench;

/**
 * The S3 gateway as components ({@link #COMPONENT}): over plain HTTP against gaul/s3proxy in the same run
 * ({@link S3Bench}, AWS SDK for both, the client in the table's JVM, s3proxy too), and over its RDMA paths
 * (hipobj-rc-v2 and cuObject, both on the TCP transport) against plain HTTP through the same gateway (the s3 module's
 * {@code RoutesBench rdma}, the RDMA control requests handed to the protocol layer in-process). The gateway for the
 * first is the s3 module's {@code RoutesBench serve} (fs store, fsync on, behind the JDK HTTP server, not Pax Web) in
 * a JVM of its own. What a user meets is measured by {@link RealPathRows}.
 */
final class S3Rows {
    private static final String ROUTES = "org.objrdma.s3.RoutesBench";
    /** How the table labels rows that are not the real distribution over real sockets. */
    static final String COMPONENT = "component (in-process): ";

    private S3Rows() {
    }

    static List<Row> plainHttp(boolean quick, Path out) throws Exception {
        S3Bench.Settings settings = quick ? new S3Bench.Settings(1, 1, 4, 100, 1, true)
                : new S3Bench.Settings(3, 1, 8, 1000, 2, true);
        Map<String, S3Bench.Figures> figures;
        String where = "in-process gateway, JDK HTTP server front";
        Process server = new ProcessBuilder(ChildProcess.javaCommand(ROUTES, "serve",
                out.resolve("gateway-store").toString()))
                .redirectError(ProcessBuilder.Redirect.appendTo(out.resolve("gateway.log").toFile())).start();
        try {
            BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            String line = r.readLine();
            if (line == null || !line.startsWith("endpoint ")) {
                throw new IOException("the gateway did not start: " + line + ", see " + out.resolve("gateway.log"));
            }
            String[] p = line.split(" ");
            figures = S3Bench.run(settings, URI.create(p[1]), p[2], p[3], false);
        } finally {
            server.getOutputStream().close(); // ends RoutesBench serve
            if (!server.waitFor(10, java.util.concurrent.TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
        List<Row> rows = new ArrayList<>();
        figures.forEach((workload, f) -> {
            String[] w = workload.split(" ", 2); // "PUT 4 KiB"
            rows.add(new Row(COMPONENT + "S3 " + w[0] + " plain HTTP (" + (w[1].equals("4 KiB") ? settings.threads() + " clients" : "1 client")
                    + ")", w[1], f.gateway(), f.unit(), "gaul/s3proxy 4.1.0 (fs backend)", f.s3proxy(), f.unit(), f.ratio(),
                    new Row.Aim(1.0, ">= 1.00x"), where));
        });
        return rows;
    }

    static List<Row> rdmaPaths(boolean quick, Path out) throws Exception {
        List<String> lines = ChildProcess.java(out.resolve("rdma-routes.log"), ROUTES, "rdma", quick ? "1" : "3",
                quick ? "20" : "300", quick ? "1" : "3");
        Map<String, Double> m = new LinkedHashMap<>();
        for (String line : lines) {
            String[] p = line.trim().split(" ");
            if (p.length == 3 && p[0].equals("measure")) {
                m.put(p[1], Double.parseDouble(p[2]));
            }
        }
        List<Row> rows = new ArrayList<>();
        for (String protocol : List.of("rc", "cuobj")) {
            String name = protocol.equals("rc") ? "hipobj-rc-v2" : "cuObject";
            for (String size : List.of("4k", "64m")) {
                for (String op : List.of("get", "put")) {
                    String key = protocol + "." + op + "." + size;
                    Double v = m.get(key);
                    Double http = m.get("http." + op + "." + size);
                    String label = size.equals("4k") ? "4 KiB" : "64 MiB";
                    String operation = COMPONENT + "S3 " + op.toUpperCase(java.util.Locale.ROOT) + " over RDMA, " + name;
                    if (v == null || http == null) {
                        rows.add(Row.unavailable(operation, label, "plain HTTP, same gateway", ">= 1.00x",
                                "RoutesBench printed no " + key));
                        continue;
                    }
                    // one client; the aims: 64 MiB at least 1.5x plain HTTP, 4 KiB at least as many ops/s
                    // (over TCP loopback the RDMA path is one more TCP stream plus control round trips, so these
                    // are aims for a real NIC; the README says which are missed here and why)
                    double aim = size.equals("4k") ? 1.0 : 1.5;
                    rows.add(Row.rate(operation, label, v, size.equals("4k") ? "ops/s" : "MB/s",
                            "plain HTTP " + op.toUpperCase(java.util.Locale.ROOT) + ", same gateway, AWS SDK", http,
                            aim, "1 client"));
                }
            }
        }
        return rows;
    }
}
