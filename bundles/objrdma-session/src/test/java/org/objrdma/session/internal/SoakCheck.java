package org.objrdma.session.internal;

import java.util.List;

/**
 * The soak's "flat" rule (README "Reliability"), over samples {seconds, heap used after a GC, threads, fds}:
 * the first quarter of the samples is warm-up and ignored; of the rest, threads and fds may end at most a small
 * slack above the highest value of the first half (threads +3, fds +4), and the heap's least-squares slope,
 * projected over the sampled span, may grow it by at most max(32 MiB, 20 % of its mean). At least four samples
 * after the warm-up are needed for a verdict.
 */
final class SoakCheck {
    static final int THREAD_SLACK = 3;
    static final int FD_SLACK = 4;
    static final long HEAP_SLACK = 32L << 20;

    private SoakCheck() {
    }

    static void assertFlat(List<long[]> samples) {
        List<long[]> steady = samples.subList(samples.size() / 4, samples.size());
        if (steady.size() < 4) {
            throw new AssertionError("a soak needs at least four samples after its warm-up quarter; it took "
                    + samples.size() + " (run longer or sample more often: objrdma.soak.sample.seconds)");
        }
        List<long[]> firstHalf = steady.subList(0, steady.size() / 2);
        List<long[]> secondHalf = steady.subList(steady.size() / 2, steady.size());
        for (int column = 2; column <= 3; column++) {
            long before = max(firstHalf, column);
            long after = max(secondHalf, column);
            long slack = column == 2 ? THREAD_SLACK : FD_SLACK;
            if (after > before + slack) {
                throw new AssertionError((column == 2 ? "threads" : "fds") + " grew during the soak: highest "
                        + before + " in the first half, " + after + " in the second (slack " + slack + ")");
            }
        }
        double n = steady.size();
        double meanT = steady.stream().mapToLong(s -> s[0]).average().orElseThrow();
        double meanH = steady.stream().mapToLong(s -> s[1]).average().orElseThrow();
        double cov = 0;
        double var = 0;
        for (long[] s : steady) {
            cov += (s[0] - meanT) * (s[1] - meanH);
            var += (s[0] - meanT) * (s[0] - meanT);
        }
        double slopePerSecond = var == 0 ? 0 : cov / var;
        double span = steady.get(steady.size() - 1)[0] - steady.get(0)[0];
        double growth = slopePerSecond * span;
        double allowed = Math.max(HEAP_SLACK, 0.2 * meanH);
        System.out.printf("soak verdict: %d samples after warm-up, heap slope %.1f KiB/s (%.1f MiB over %.0f s,"
                + " allowed %.1f MiB), threads %d -> %d, fds %d -> %d%n", (int) n, slopePerSecond / 1024,
                growth / (1 << 20), span, allowed / (1 << 20), max(firstHalf, 2), max(secondHalf, 2),
                max(firstHalf, 3), max(secondHalf, 3));
        if (growth > allowed) {
            throw new AssertionError(String.format("the heap grew during the soak: %.1f MiB over %.0f s"
                    + " (allowed %.1f MiB)", growth / (1 << 20), span, allowed / (1 << 20)));
        }
    }

    private static long max(List<long[]> samples, int column) {
        return samples.stream().mapToLong(s -> s[column]).max().orElseThrow();
    }
}
