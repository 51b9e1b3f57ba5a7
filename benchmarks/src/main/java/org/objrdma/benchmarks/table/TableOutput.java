package org.objrdma.benchmarks.table;

import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.data.category.DefaultCategoryDataset;

/** The table three ways: aligned text (stdout and a file, also Markdown for the README), CSV, and a PNG of ratio against aim. */
final class TableOutput {
    private static final String[] HEADER = {"operation", "size", "result", "reference (same run)", "ratio", "aim", "met?",
        "server CPU s/GiB (reference)"};

    private TableOutput() {
    }

    static List<String[]> cells(List<Row> rows) {
        List<String[]> out = new ArrayList<>();
        for (Row r : rows) {
            out.add(new String[] {r.operation(), r.size(),
                    r.measured() ? num(r.result()) + " " + r.unit() : r.note(),
                    r.reference() + (r.measured() ? ": " + num(r.referenceValue()) + " " + r.referenceUnit() : ""),
                    r.measured() ? String.format(Locale.ROOT, "%.2fx", r.ratio()) : "n/a",
                    r.aim().text(), r.met(), cpu(r)});
        }
        return out;
    }

    /** "0.412 (0.600), least" : the row's server CPU per GiB, its reference's, and whether its path cost least. */
    static String cpu(Row r) {
        if (Double.isNaN(r.cpuPerGiB())) {
            return "";
        }
        return num(r.cpuPerGiB()) + (Double.isNaN(r.referenceCpuPerGiB()) ? "" : " (" + num(r.referenceCpuPerGiB()) + ")")
                + (r.leastCpu() ? ", least" : "");
    }

    static String text(List<Row> rows) {
        List<String[]> cells = cells(rows);
        int[] width = new int[HEADER.length];
        for (int i = 0; i < HEADER.length; i++) {
            width[i] = HEADER[i].length();
            for (String[] c : cells) {
                width[i] = Math.max(width[i], c[i].length());
            }
        }
        StringBuilder b = new StringBuilder();
        line(b, HEADER, width);
        for (String[] c : cells) {
            line(b, c, width);
        }
        return b.toString();
    }

    static String markdown(List<Row> rows) {
        StringBuilder b = new StringBuilder("| " + String.join(" | ", HEADER) + " |\n|");
        b.append("---|".repeat(HEADER.length)).append('\n');
        for (String[] c : cells(rows)) {
            b.append("| ").append(String.join(" | ", c).replace("\n", " ")).append(" |\n");
        }
        return b.toString();
    }

    static void csv(List<Row> rows, Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add("operation,size,result,unit,reference,reference_value,reference_unit,ratio,aim_min_ratio,aim,met,note,"
                + "server_cpu_s_per_gib,reference_server_cpu_s_per_gib,least_server_cpu");
        for (Row r : rows) {
            lines.add(String.join(",", q(r.operation()), q(r.size()), num(r.result()), q(r.unit()), q(r.reference()),
                    num(r.referenceValue()), q(r.referenceUnit()), num(r.ratio()), num(r.aim().minRatio()),
                    q(r.aim().text()), r.met(), q(r.note()), num(r.cpuPerGiB()), num(r.referenceCpuPerGiB()),
                    r.leastCpu() ? "yes" : "no"));
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    /** Horizontal bars: each row's ratio next to the ratio its aim asks for. */
    static void png(List<Row> rows, Path file, String title) throws IOException {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        for (Row r : rows) {
            String label = r.operation() + " " + r.size();
            data.addValue(r.measured() ? r.ratio() : 0, "ratio (same-run reference = 1)", label);
            data.addValue(Double.isNaN(r.aim().minRatio()) ? 0 : r.aim().minRatio(), "aim", label);
        }
        JFreeChart chart = ChartFactory.createBarChart(title, null, "ratio to the same-run reference (higher is better)",
                data, PlotOrientation.HORIZONTAL, true, false, false);
        CategoryPlot plot = chart.getCategoryPlot();
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.GRAY);
        BarRenderer bars = (BarRenderer) plot.getRenderer();
        bars.setSeriesPaint(0, new Color(0x2b6cb0));
        bars.setSeriesPaint(1, new Color(0xdd6b20));
        bars.setItemMargin(0.0);
        // room for the real-path and component labels, which are long, without "..." cutting off what a row is
        plot.getDomainAxis().setMaximumCategoryLabelWidthRatio(0.45f);
        ChartUtils.saveChartAsPNG(file.toFile(), chart, 1500, 140 + 34 * rows.size());
    }

    private static void line(StringBuilder b, String[] cells, int[] width) {
        for (int i = 0; i < cells.length; i++) {
            b.append(i == 0 ? "" : " | ").append(String.format("%-" + width[i] + "s", cells[i]));
        }
        b.append('\n');
    }

    private static String num(double v) {
        if (Double.isNaN(v)) {
            return "";
        }
        if (Math.abs(v) >= 1000) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        return String.format(Locale.ROOT, "%.3g", v);
    }

    private static String q(String s) {
        return "\"" + s.replace("\"", "\"\"") + "\"";
    }
}
