package org.objrdma.benchmarks.table;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the modules' own JMH benchmarks (their {@code bench} classes in the test trees, all on this JVM's class
 * path: JMH merges every {@code META-INF/BenchmarkList} it finds) with one set of run lengths for the whole table,
 * so the table's time budget is predictable: quick = one short iteration (proves the benchmark runs), full = 2
 * warm-up and 4 measured iterations of 1 s in one fork.
 */
final class Jmh {
    private final boolean quick;
    private final List<String> jvmArgs;

    Jmh(boolean quick, List<String> jvmArgs) {
        this.quick = quick;
        this.jvmArgs = jvmArgs;
    }

    /** The results of the benchmark methods of {@code benchmarkClass} matching {@code methods} (a regex). */
    Results run(String benchmarkClass, String methods, Map<String, String[]> params, int threads)
            throws RunnerException {
        ChainedOptionsBuilder b = new OptionsBuilder()
                .include(benchmarkClass.replace(".", "\\.") + "\\.(" + methods + ")$")
                .forks(1).threads(threads).shouldFailOnError(true)
                .jvmArgsAppend(jvmArgs.toArray(String[]::new));
        params.forEach(b::param);
        if (quick) {
            b.warmupIterations(1).warmupTime(TimeValue.milliseconds(300))
                    .measurementIterations(1).measurementTime(TimeValue.milliseconds(700));
        } else {
            b.warmupIterations(2).warmupTime(TimeValue.seconds(1))
                    .measurementIterations(4).measurementTime(TimeValue.seconds(1));
        }
        Collection<RunResult> results = new Runner(b.build()).run();
        if (results.isEmpty()) {
            throw new IllegalStateException("JMH found no benchmark " + benchmarkClass + "." + methods
                    + " on the class path");
        }
        return new Results(new ArrayList<>(results));
    }

    /** What one {@link #run} returned, looked up by method name and parameters. */
    record Results(List<RunResult> all) {
        RunResult get(String method, String... paramPairs) {
            for (RunResult r : all) {
                if (!r.getParams().getBenchmark().endsWith("." + method)) {
                    continue;
                }
                boolean match = true;
                for (int i = 0; i + 1 < paramPairs.length; i += 2) {
                    match &= paramPairs[i + 1].equals(r.getParams().getParam(paramPairs[i]));
                }
                if (match) {
                    return r;
                }
            }
            throw new IllegalStateException("no JMH result for " + method + " " + String.join(" ", paramPairs));
        }

        double score(String method, String... paramPairs) {
            return get(method, paramPairs).getPrimaryResult().getScore();
        }

        /** A percentile of a SampleTime benchmark, in its time unit. */
        double percentile(String method, double p) {
            Result<?> primary = get(method).getPrimaryResult();
            return primary.getStatistics().getPercentile(p);
        }

        String unit(String method) {
            return get(method).getPrimaryResult().getScoreUnit();
        }
    }
}
