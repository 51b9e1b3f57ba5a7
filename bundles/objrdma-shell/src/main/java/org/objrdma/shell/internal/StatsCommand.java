package org.objrdma.shell.internal;

import java.util.Map;

import org.apache.karaf.shell.api.action.Action;
import org.apache.karaf.shell.api.action.Command;
import org.apache.karaf.shell.api.action.Option;
import org.apache.karaf.shell.api.action.lifecycle.Reference;
import org.apache.karaf.shell.api.action.lifecycle.Service;
import org.apache.karaf.shell.support.table.ShellTable;
import org.objrdma.api.telemetry.Counter;
import org.objrdma.api.telemetry.Latency;
import org.objrdma.api.telemetry.LatencySnapshot;
import org.objrdma.api.telemetry.TelemetryView;

/**
 * Every telemetry counter; with {@code --interval} two samples that far apart, and per counter the
 * difference and the rate per second between them. Then every latency histogram (count, p50, p99, max in
 * microseconds), as it is at the end.
 */
@Service
@Command(scope = "rdma", name = "stats", description = "Shows objrdma's counters; with --interval, rates between two samples")
public class StatsCommand implements Action {

    @Option(name = "--interval", description = "seconds between two samples (1..3600); prints deltas and rates")
    int intervalSeconds;

    @Option(name = "--nonzero", description = "only counters that are not zero (or moved, with --interval)")
    boolean nonZero;

    @Option(name = "--no-format", description = "Disable table rendered output")
    boolean noFormat;

    @Reference
    TelemetryView telemetry;

    @Override
    public Object execute() throws InterruptedException {
        if (intervalSeconds < 0 || intervalSeconds > 3600) {
            throw new IllegalArgumentException("--interval must be 1..3600 seconds, was " + intervalSeconds);
        }
        Map<Counter, Long> first = telemetry.snapshot();
        long start = System.nanoTime();
        ShellTable table = new ShellTable();
        table.column("Counter");
        table.column("Value");
        if (intervalSeconds == 0) {
            table.column("Description");
            for (Map.Entry<Counter, Long> e : first.entrySet()) {
                if (!nonZero || e.getValue() != 0) {
                    table.addRow().addContent(e.getKey().id(), e.getValue(), e.getKey().description());
                }
            }
        } else {
            Thread.sleep(intervalSeconds * 1000L);
            Map<Counter, Long> second = telemetry.snapshot();
            double seconds = (System.nanoTime() - start) / 1e9;
            table.column("Delta");
            table.column("Per second");
            for (Map.Entry<Counter, Long> e : second.entrySet()) {
                long delta = e.getValue() - first.getOrDefault(e.getKey(), 0L);
                if (!nonZero || delta != 0) {
                    table.addRow().addContent(e.getKey().id(), e.getValue(), delta,
                            String.format(java.util.Locale.ROOT, "%.1f", delta / seconds));
                }
            }
        }
        table.print(System.out, !noFormat);
        System.out.println();
        latencyTable(telemetry, nonZero).print(System.out, !noFormat);
        return null;
    }

    /** One row per latency histogram; durations in microseconds with one decimal. */
    static ShellTable latencyTable(TelemetryView telemetry, boolean nonEmptyOnly) {
        ShellTable table = new ShellTable();
        for (String column : java.util.List.of("Latency", "Count", "p50 us", "p99 us", "Max us", "Description")) {
            table.column(column);
        }
        for (Latency latency : Latency.values()) {
            LatencySnapshot s = telemetry.latency(latency);
            if (!nonEmptyOnly || s.count() != 0) {
                table.addRow().addContent(latency.id(), s.count(), micros(s.p50Nanos()), micros(s.p99Nanos()),
                        micros(s.maxNanos()), latency.description());
            }
        }
        return table;
    }

    private static String micros(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.1f", nanos / 1e3);
    }
}
