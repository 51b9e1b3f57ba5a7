package org.objrdma.itests.s3;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The Ceph cluster of {@code scripts/ceph.sh} behind a fleet of gateways. Directory: {@code -Dobjrdma.ceph.dir},
 * else env {@code OBJRDMA_CEPH_DIR}, else {@code target/ceph} of the repository. With {@code -Dobjrdma.ceph.start=true}
 * ({@code -Pceph}) it is started here and {@link #close()} stops it; otherwise {@link #find()} says why there is
 * none (the IT is then skipped with that reason).
 */
final class CephForFleet implements AutoCloseable {
    private static final long SCRIPT_LIMIT_S = 360;
    final Path repo;
    final Path dir;
    final boolean startedHere;
    final List<URI> endpoints;
    final String accessKey;
    final String secretKey;
    final int osds;

    private CephForFleet(Path repo, Path dir, boolean startedHere, Map<String, String> env) {
        this.repo = repo;
        this.dir = dir;
        this.startedHere = startedHere;
        this.endpoints = Arrays.stream(env.get("OBJRDMA_CEPH_ENDPOINTS").split(",")).map(URI::create).toList();
        this.accessKey = env.get("OBJRDMA_CEPH_ACCESS_KEY");
        this.secretKey = env.get("OBJRDMA_CEPH_SECRET_KEY");
        this.osds = osds(dir);
    }

    /** OSDS from the cluster's layout file (scripts/ceph.sh writes it at bootstrap). */
    private static int osds(Path dir) {
        try {
            return Files.readAllLines(dir.resolve("layout")).stream().filter(l -> l.startsWith("OSDS="))
                    .mapToInt(l -> Integer.parseInt(l.substring(5).strip())).findFirst().orElse(0);
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    /** The cluster, or a skip reason as the exception's message. */
    static CephForFleet find() throws NoCluster {
        Path repo = Path.of("").toAbsolutePath();
        while (repo != null && !Files.isRegularFile(repo.resolve("scripts/ceph.sh"))) {
            repo = repo.getParent();
        }
        if (repo == null) {
            throw new IllegalStateException("scripts/ceph.sh not found above " + Path.of("").toAbsolutePath());
        }
        String spec = System.getProperty("objrdma.ceph.dir", "");
        if (spec.isBlank()) {
            spec = System.getenv().getOrDefault("OBJRDMA_CEPH_DIR", "");
        }
        Path dir = spec.isBlank() ? repo.resolve("target/ceph") : Path.of(spec).toAbsolutePath();
        boolean start = Boolean.getBoolean("objrdma.ceph.start") || "1".equals(System.getenv("OBJRDMA_CEPH_START"));
        if (start) {
            run(repo, dir, "start");
        }
        Path envFile = dir.resolve("ceph.env");
        if (!Files.isReadable(envFile)) {
            throw new NoCluster("no Ceph cluster in " + dir + " (no ceph.env): run scripts/ceph.sh start, or -Pceph");
        }
        Map<String, String> env = new HashMap<>();
        try {
            for (String line : Files.readAllLines(envFile)) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    env.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + envFile + ": " + e);
        }
        CephForFleet cluster = new CephForFleet(repo, dir, start, env);
        for (URI endpoint : cluster.endpoints) {
            if (!serves(endpoint)) {
                throw new NoCluster("the Ceph cluster in " + dir + " does not serve on " + endpoint);
            }
        }
        return cluster;
    }

    /** Why there is no cluster: the IT is skipped with this message. */
    static final class NoCluster extends Exception {
        NoCluster(String reason) {
            super(reason);
        }
    }

    static boolean serves(URI endpoint) {
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build()) {
            return http.send(HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** {@code scripts/ceph.sh command [args] dir}, bounded; fails with its output. */
    static String run(Path repo, Path dir, String command, String... args) {
        List<String> argv = new ArrayList<>(List.of(repo.resolve("scripts/ceph.sh").toString(), command));
        argv.addAll(List.of(args));
        argv.add(dir.toString());
        try {
            Files.createDirectories(dir);
            Path out = Files.createTempFile(dir, "ceph-sh-" + command, ".out");
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(SCRIPT_LIMIT_S, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new IllegalStateException("scripts/ceph.sh " + command + " did not finish within " + SCRIPT_LIMIT_S
                        + " s: " + Files.readString(out));
            }
            String text = Files.readString(out);
            Files.deleteIfExists(out);
            if (p.exitValue() != 0) {
                throw new IllegalStateException("scripts/ceph.sh " + command + " failed (" + p.exitValue() + "): " + text);
            }
            return text;
        } catch (IOException e) {
            throw new IllegalStateException("scripts/ceph.sh " + command + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** SIGKILL to one daemon (osd.1, client.rgw.a, ...). */
    void kill(String daemon) {
        run(repo, dir, "kill", daemon);
    }

    /** Starts what is not running; returns when every RGW serves. */
    void startMissing() {
        run(repo, dir, "start");
    }

    /** Whether PGs are all active+clean (HEALTH_OK is too strict: noout and the like are warnings). */
    boolean clean() {
        return run(repo, dir, "status").contains("HEALTH_OK");
    }

    @Override
    public void close() {
        if (startedHere) {
            run(repo, dir, "stop");
        }
    }
}
