package org.objrdma.verbs.bench;

import java.util.Collection;
import java.util.Locale;
import java.util.TreeMap;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs {@link VerbsWriteBenchmark} and prints, per size, the verbs post+poll time next to the
 * {@code MemorySegment.copy} reference of the same run, with the aims of issue 4: 64 B post+poll at most
 * 300 ns, 1 MiB at least 0.8 × the copy's throughput. Arguments are JMH's (e.g. {@code -wi 1 -i 3}).
 */
public final class VerbsBenchmarkMain {
    private VerbsBenchmarkMain() {
    }

    public static void main(String[] args) throws Exception {
        Collection<RunResult> results = new Runner(new OptionsBuilder()
                .parent(new CommandLineOptions(args))
                .include(VerbsWriteBenchmark.class.getName() + "\\.")
                .build()).run();
        TreeMap<Integer, double[]> bySize = new TreeMap<>();
        for (RunResult r : results) {
            int size = Integer.parseInt(r.getParams().getParam("size"));
            String bench = r.getParams().getBenchmark();
            double ns = r.getPrimaryResult().getScore();
            double[] row = bySize.computeIfAbsent(size, k -> new double[2]);
            row[bench.endsWith("verbsWritePostPoll") ? 0 : 1] = ns;
        }
        System.out.println();
        System.out.println("size      verbs post+poll      MemorySegment.copy   verbs/copy throughput   aim");
        for (var e : bySize.entrySet()) {
            int size = e.getKey();
            double verbs = e.getValue()[0];
            double copy = e.getValue()[1];
            double ratio = copy / verbs; // throughput ratio: same bytes, time inverted
            String aim = size <= 64
                    ? String.format(Locale.ROOT, "post+poll <= 300 ns: %s", verbs <= 300 ? "met" : "MISSED")
                    : String.format(Locale.ROOT, "ratio >= 0.8: %s", ratio >= 0.8 ? "met" : "MISSED");
            System.out.printf(Locale.ROOT, "%-9s %10.1f ns/op %s %10.1f ns/op %s %8.3f              %s%n",
                    size >= 1 << 20 ? (size >> 20) + " MiB" : size + " B", verbs, gbps(size, verbs),
                    copy, gbps(size, copy), ratio, aim);
        }
    }

    private static String gbps(int size, double ns) {
        return String.format(Locale.ROOT, "(%6.2f GB/s)", size / ns);
    }
}
