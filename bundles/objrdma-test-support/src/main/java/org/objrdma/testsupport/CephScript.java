package org.objrdma.testsupport;

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
 * The Ceph cluster of {@code scripts/ceph.sh}, for a test that needs a real distributed store. Where it lives:
 * system property {@code objrdma.ceph.dir}, else env {@code OBJRDMA_CEPH_DIR}, else {@code target/ceph} of the
 * repository. With {@code -Dobjrdma.ceph.start=true} (env {@code OBJRDMA_CEPH_START=1}; the Maven profile
 * {@code ceph}) {@link #find()} starts it and {@link #close()} stops it again; otherwise a cluster that is not there
 * or does not serve is a {@link NoCluster} whose message says how to start one (the caller skips with it). A start
 * that fails is a failure, not a skip: the run asked for a cluster. Every script call is bounded.
 */
public final class CephScript implements AutoCloseable {
    private static final Duration SCRIPT_LIMIT = Duration.ofMinutes(6);
    private static final List<String> ENV_KEYS = List.of("OBJRDMA_CEPH_ENDPOINTS", "OBJRDMA_CEPH_ACCESS_KEY",
            "OBJRDMA_CEPH_SECRET_KEY");

    private final Path repo;
    private final Path dir;
    private final boolean startedHere;
    private final List<URI> endpoints;
    private final String accessKey;
    private final String secretKey;
    private final int osds;

    private CephScript(Path repo, Path dir, boolean startedHere, Map<String, String> env) {
        this.repo = repo;
        this.dir = dir;
        this.startedHere = startedHere;
        this.endpoints = Arrays.stream(env.get("OBJRDMA_CEPH_ENDPOINTS").split(",")).map(URI::create).toList();
        this.accessKey = env.get("OBJRDMA_CEPH_ACCESS_KEY");
        this.secretKey = env.get("OBJRDMA_CEPH_SECRET_KEY");
        this.osds = osds(dir);
    }

    /** Why there is no cluster; the message is the skip reason. */
    public static final class NoCluster extends Exception {
        NoCluster(String reason) {
            super(reason);
        }
    }

    /** The cluster, started first when the run asks for it (class comment). */
    public static CephScript find() throws NoCluster {
        Path repo = repositoryRoot();
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
            throw new NoCluster("no Ceph cluster in " + dir + " (no ceph.env): run scripts/ceph.sh start, or pass"
                    + " -Dobjrdma.ceph.start=true (the Maven profile 'ceph' does)");
        }
        CephScript cluster = new CephScript(repo, dir, start, readEnv(envFile));
        for (URI endpoint : cluster.endpoints) {
            if (!serves(endpoint)) {
                cluster.close();
                throw new NoCluster("the Ceph cluster in " + dir + " does not serve on " + endpoint
                        + ": scripts/ceph.sh start " + dir);
            }
        }
        return cluster;
    }

    /** The RGW endpoints. */
    public List<URI> endpoints() {
        return endpoints;
    }

    public String accessKey() {
        return accessKey;
    }

    public String secretKey() {
        return secretKey;
    }

    public Path dir() {
        return dir;
    }

    /** OSDs of the cluster's layout (0 if the script wrote none). */
    public int osds() {
        return osds;
    }

    /** SIGKILL to one daemon ({@code osd.1}, {@code client.rgw.b}, ...). */
    public void kill(String daemon) {
        run(repo, dir, "kill", daemon);
    }

    /** Starts whatever is not running; returns when every RGW serves. */
    public void startMissing() {
        run(repo, dir, "start");
    }

    /** Whether the cluster reports HEALTH_OK. */
    public boolean clean() {
        return run(repo, dir, "status").contains("HEALTH_OK");
    }

    /** Stops the cluster if {@link #find()} started it. */
    @Override
    public void close() {
        if (startedHere) {
            run(repo, dir, "stop");
        }
    }

    /** Whether {@code endpoint} answers 200. */
    public static boolean serves(URI endpoint) {
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

    private static int osds(Path dir) {
        try {
            return Files.readAllLines(dir.resolve("layout")).stream().filter(l -> l.startsWith("OSDS="))
                    .mapToInt(l -> Integer.parseInt(l.substring(5).strip())).findFirst().orElse(0);
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    private static Map<String, String> readEnv(Path envFile) {
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
        for (String key : ENV_KEYS) {
            if (env.getOrDefault(key, "").isBlank()) {
                throw new IllegalStateException(envFile + " lacks " + key + ": remove the cluster directory and start again");
            }
        }
        return env;
    }

    private static Path repositoryRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("scripts/ceph.sh"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("scripts/ceph.sh not found above " + Path.of("").toAbsolutePath());
        }
        return p;
    }

    /** {@code scripts/ceph.sh command [args] dir}, bounded; fails with its output. */
    private static String run(Path repo, Path dir, String command, String... args) {
        List<String> argv = new ArrayList<>(List.of(repo.resolve("scripts/ceph.sh").toString(), command));
        argv.addAll(List.of(args));
        argv.add(dir.toString());
        try {
            Files.createDirectories(dir);
            Path out = Files.createTempFile(dir, "ceph-sh-" + command, ".out");
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(SCRIPT_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new IllegalStateException("scripts/ceph.sh " + command + " did not finish within " + SCRIPT_LIMIT
                        + ": " + Files.readString(out));
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
}
