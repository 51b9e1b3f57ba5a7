package org.objrdma.session.internal.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs the session benchmarks and prints each result as a ratio to the reference measured in the same
 * run: cycles on 1 and 2 threads against the id-and-map floor, and one reaper pass over 100 000 sessions
 * against a bare scan of as many map entries. Then the idle-session heap cost. Arguments: {@code quick}
 * for one short iteration each (a smoke run).
 */
public final class BenchMain {
    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        boolean quick = args.length > 0 && args[0].equals("quick");
        List<String> lines = new ArrayList<>();
        for (int threads : new int[] {1, 2}) {
            Collection<RunResult> results = new Runner(options(quick, SessionCycleBenchmark.class.getName(), threads)).run();
            double reference = score(results, "reference");
            for (String b : new String[] {"getCycle", "putCycle"}) {
                double s = score(results, b);
                lines.add(String.format("%-9s %d thread(s): %,12.0f cycles/s   reference %,12.0f ops/s   ratio %.3f",
                        b, threads, s, reference, s / reference));
            }
        }
        Collection<RunResult> scan = new Runner(options(quick, ReaperScanBenchmark.class.getName(), 1)).run();
        double pass = score(scan, "reaperPass");
        double bare = score(scan, "reference");
        lines.add(String.format("reaper pass over %,d idle sessions: %,.0f us   bare map scan %,.0f us   ratio %.2f",
                ReaperScanBenchmark.SESSIONS, pass, bare, pass / bare));
        System.out.println();
        System.out.println("==== objrdma-session benchmark summary ====");
        lines.forEach(System.out::println);
        System.out.println();
        IdleSessionHeap.main(new String[0]);
    }

    private static org.openjdk.jmh.runner.options.Options options(boolean quick, String include, int threads) {
        ChainedOptionsBuilder b = new OptionsBuilder().include(include.replace(".", "\\.") + "\\.").threads(threads);
        if (quick) {
            b = b.warmupIterations(1).warmupTime(org.openjdk.jmh.runner.options.TimeValue.seconds(1))
                    .measurementIterations(1).measurementTime(org.openjdk.jmh.runner.options.TimeValue.seconds(1));
        }
        return b.build();
    }

    private static double score(Collection<RunResult> results, String method) {
        for (RunResult r : results) {
            if (r.getParams().getBenchmark().endsWith("." + method)) {
                return r.getPrimaryResult().getScore();
            }
        }
        throw new IllegalStateException("no result for " + method);
    }
}
