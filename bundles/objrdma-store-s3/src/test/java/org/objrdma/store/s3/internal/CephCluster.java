package org.objrdma.store.s3.internal;

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
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The Ceph cluster of {@code scripts/ceph.sh} as the remote store of a test. Where it lives: system property
 * {@code objrdma.ceph.dir}, else env {@code OBJRDMA_CEPH_DIR}, else {@code target/ceph} of the repository.
 * With {@code -Dobjrdma.ceph.start=true} (or env {@code OBJRDMA_CEPH_START=1}) the first test that needs it runs
 * {@code scripts/ceph.sh start} (bounded) and the cluster is stopped when the whole test run ends (JUnit's root
 * store closes it, even after failures); otherwise a cluster that is not running makes the test skip, saying how
 * to start one.
 */
final class CephCluster {
    private static final Duration START_LIMIT = Duration.ofMinutes(6);
    private final Path dir;
    private final boolean startedHere;
    private final List<URI> endpoints;
    private final String accessKey;
    private final String secretKey;

    private CephCluster(Path dir, boolean startedHere, Map<String, String> env) {
        this.dir = dir;
        this.startedHere = startedHere;
        this.endpoints = Arrays.stream(env.get("OBJRDMA_CEPH_ENDPOINTS").split(",")).map(URI::create).toList();
        this.accessKey = env.get("OBJRDMA_CEPH_ACCESS_KEY");
        this.secretKey = env.get("OBJRDMA_CEPH_SECRET_KEY");
    }

    /** The running cluster for this test run; skips the calling test (with the reason) when there is none. */
    static CephCluster require(ExtensionContext context) {
        Lookup lookup = lookup(context);
        Assumptions.assumeTrue(lookup.cluster() != null, lookup.skipReason());
        return lookup.cluster();
    }

    private static Lookup lookup(ExtensionContext context) {
        return context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(Lookup.class, k -> lookup(), Lookup.class);
    }

    /** What the run found, kept once per run: a cluster (closed when the run ends) or why there is none. */
    private record Lookup(CephCluster cluster, String skipReason) implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    private static Lookup lookup() {
        Path repo = repositoryRoot();
        String dirSpec = System.getProperty("objrdma.ceph.dir", "");
        if (dirSpec.isBlank()) {
            dirSpec = System.getenv().getOrDefault("OBJRDMA_CEPH_DIR", "");
        }
        Path dir = dirSpec.isBlank() ? repo.resolve("target/ceph") : Path.of(dirSpec).toAbsolutePath();
        boolean start = Boolean.getBoolean("objrdma.ceph.start") || "1".equals(System.getenv("OBJRDMA_CEPH_START"));
        if (start) {
            // a failure to start is a failure, not a skip: the run asked for a cluster
            run(repo, "start", dir);
        }
        Path envFile = dir.resolve("ceph.env");
        if (!Files.isReadable(envFile)) {
            return new Lookup(null, "no Ceph cluster in " + dir + " (no ceph.env): run scripts/ceph.sh start, or pass"
                    + " -Dobjrdma.ceph.start=true (the Maven profile 'ceph' does)");
        }
        CephCluster cluster = new CephCluster(dir, start, readEnv(envFile));
        for (URI endpoint : cluster.endpoints) {
            if (!serves(endpoint)) {
                cluster.close();
                return new Lookup(null, "the Ceph cluster in " + dir + " does not serve on " + endpoint
                        + ": scripts/ceph.sh start " + dir);
            }
        }
        return new Lookup(cluster, null);
    }

    static boolean serves(URI endpoint) {
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build()) {
            HttpResponse<Void> r = http.send(HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding());
            return r.statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
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
        for (String key : List.of("OBJRDMA_CEPH_ENDPOINTS", "OBJRDMA_CEPH_ACCESS_KEY", "OBJRDMA_CEPH_SECRET_KEY")) {
            if (env.getOrDefault(key, "").isBlank()) {
                throw new IllegalStateException(envFile + " lacks " + key + ": remove the cluster directory and start again");
            }
        }
        return env;
    }

    static Path repositoryRoot() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isRegularFile(p.resolve("scripts/ceph.sh"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("scripts/ceph.sh not found above " + Path.of("").toAbsolutePath());
        }
        return p;
    }

    /** Runs {@code scripts/ceph.sh <command> [args] dir}, bounded; its output goes to dir/log/ceph-sh.log. */
    static String run(Path repo, String command, Path dir, String... args) {
        List<String> argv = new ArrayList<>(List.of(repo.resolve("scripts/ceph.sh").toString(), command));
        argv.addAll(List.of(args));
        argv.add(dir.toString());
        try {
            Files.createDirectories(dir);
            Path out = Files.createTempFile(dir, "ceph-sh-" + command, ".out");
            Process p = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(START_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor();
                throw new IllegalStateException("scripts/ceph.sh " + command + " did not finish within " + START_LIMIT
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

    List<URI> endpoints() {
        return endpoints;
    }

    String accessKey() {
        return accessKey;
    }

    String secretKey() {
        return secretKey;
    }

    Path dir() {
        return dir;
    }

    /** SIGKILLs one daemon (osd.1, client.rgw.b, ...). */
    void kill(String daemon) {
        run(repositoryRoot(), "kill", dir, daemon);
    }

    /** Starts whatever is not running and waits until every RGW serves. */
    void startMissing() {
        run(repositoryRoot(), "start", dir);
    }

    /** The adapter configuration for this cluster: every endpoint, its credential, a prefix of this test's own. */
    Map<String, Object> config(String prefix, Map<String, String> users) {
        Map<String, Object> p = new HashMap<>();
        p.put("endpoint", String.join(",", endpoints.stream().map(URI::toString).toList()));
        p.put("service.access.key", accessKey);
        p.put("service.secret.key", secretKey);
        p.put("bucket.prefix", prefix);
        p.put("system.bucket", prefix + "system");
        p.put("credentials", String.join(",", users.entrySet().stream().map(e -> e.getKey() + ":" + e.getValue()).toList()));
        return p;
    }

    /**
     * Gives a test method or a {@code @BeforeAll} a {@link CephCluster} parameter: {@code @ExtendWith(CephCluster.Resolver.class)}.
     */
    static final class Resolver implements ParameterResolver, ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            // the whole class is reported skipped, with the reason, when there is no cluster
            Lookup lookup = lookup(context);
            return lookup.cluster() != null ? ConditionEvaluationResult.enabled("Ceph in " + lookup.cluster().dir)
                    : ConditionEvaluationResult.disabled(lookup.skipReason());
        }

        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            return parameter.getParameter().getType() == CephCluster.class;
        }

        @Override
        public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
            return require(context);
        }
    }

    void close() {
        if (startedHere) {
            run(repositoryRoot(), "stop", dir);
        }
    }
}
