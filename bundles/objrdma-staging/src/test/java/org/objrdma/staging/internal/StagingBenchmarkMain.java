package org.objrdma.staging.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.util.Statistics;

/**
 * Runs {@link StagingBorrowBenchmark} with 1 and with 16 threads and prints p50 / p99 of each benchmark
 * and its ratio to the two references measured in the same run. Arguments: thread counts (default 1 16).
 */
public final class StagingBenchmarkMain {

    private static final String STAGING = "stagingBorrowRelease";
    private static final String NO_SCRUB = "stagingBorrowReleaseNoScrub";
    private static final String COMMONS = "referenceCommonsPool";
    private static final String DEQUE = "referenceDeque";

    private StagingBenchmarkMain() {
    }

    public static void main(String[] args) throws Exception {
        List<Integer> threadCounts = new ArrayList<>();
        for (String a : args) {
            threadCounts.add(Integer.parseInt(a));
        }
        if (threadCounts.isEmpty()) {
            threadCounts = List.of(1, 16);
        }
        Map<Integer, Map<String, Statistics>> results = new LinkedHashMap<>();
        for (int threads : threadCounts) {
            ChainedOptionsBuilder opts = new OptionsBuilder()
                    .include(StagingBorrowBenchmark.class.getName() + "\\.")
                    .threads(threads)
                    .shouldFailOnError(true);
            Collection<RunResult> run = new Runner(opts.build()).run();
            Map<String, Statistics> byName = new LinkedHashMap<>();
            for (RunResult r : run) {
                String label = r.getParams().getBenchmark();
                byName.put(label.substring(label.lastIndexOf('.') + 1), r.getPrimaryResult().getStatistics());
            }
            results.put(threads, byName);
        }
        System.out.println();
        System.out.println("Staging borrow + release of a 4 KiB lease, ns per operation (JMH SampleTime)");
        System.out.printf("%-8s %-28s %10s %10s %12s %12s%n", "threads", "benchmark", "p50", "p99",
                "p99/commons", "p99/deque");
        for (var e : results.entrySet()) {
            Map<String, Statistics> m = e.getValue();
            double commons99 = m.get(COMMONS).getPercentile(99);
            double deque99 = m.get(DEQUE).getPercentile(99);
            for (String name : List.of(STAGING, NO_SCRUB, COMMONS, DEQUE)) {
                Statistics s = m.get(name);
                System.out.printf("%-8d %-28s %10.0f %10.0f %12.2f %12.2f%n", e.getKey(), name,
                        s.getPercentile(50), s.getPercentile(99), s.getPercentile(99) / commons99,
                        s.getPercentile(99) / deque99);
            }
        }
        System.out.println("Aim: p99 <= 1000 ns for stagingBorrowRelease. Timer granularity adds ~20-30 ns per sample.");
    }
}
