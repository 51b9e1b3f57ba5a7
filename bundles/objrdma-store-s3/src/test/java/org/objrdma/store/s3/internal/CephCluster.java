package org.objrdma.store.s3.internal;

import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.objrdma.testsupport.CephScript;

/**
 * The Ceph cluster of {@code scripts/ceph.sh} ({@link CephScript}: where it lives, starting it with
 * {@code -Dobjrdma.ceph.start=true}) as the remote store of a JUnit 5 test: found once per test run, stopped when
 * the whole run ends (JUnit's root store closes it, even after failures) if the run started it; without one the test
 * is skipped with the reason.
 */
final class CephCluster {
    private final CephScript script;

    private CephCluster(CephScript script) {
        this.script = script;
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
                cluster.script.close();
            }
        }
    }

    private static Lookup lookup() {
        try {
            return new Lookup(new CephCluster(CephScript.find()), null);
        } catch (CephScript.NoCluster none) {
            return new Lookup(null, none.getMessage());
        }
    }

    List<URI> endpoints() {
        return script.endpoints();
    }

    /** SIGKILLs one daemon (osd.1, client.rgw.b, ...). */
    void kill(String daemon) {
        script.kill(daemon);
    }

    /** Starts whatever is not running and waits until every RGW serves. */
    void startMissing() {
        script.startMissing();
    }

    /** The adapter configuration for this cluster: every endpoint, its credential, a prefix of this test's own. */
    Map<String, Object> config(String prefix, Map<String, String> users) {
        Map<String, Object> p = new HashMap<>();
        p.put("endpoint", String.join(",", script.endpoints().stream().map(URI::toString).toList()));
        p.put("service.access.key", script.accessKey());
        p.put("service.secret.key", script.secretKey());
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
            return lookup.cluster() != null ? ConditionEvaluationResult.enabled("Ceph in " + lookup.cluster().script.dir())
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
}
