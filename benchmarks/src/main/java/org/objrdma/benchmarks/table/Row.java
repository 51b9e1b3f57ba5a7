package org.objrdma.benchmarks.table;

import java.util.Locale;

/**
 * One line of the benchmark table: what was measured, against which reference measured in the same run, and
 * the aim; for the real-distribution rows also the server's CPU seconds per GiB moved, of the row and of its
 * reference ({@code NaN} where not measured), and {@code leastCpu} when this path cost the server least of the
 * paths measured for the same operation, size and clients. {@code ratio} is always "higher is better" (result over reference for rates, reference over result
 * for times), so one chart can hold every row; an aim on an absolute figure is turned into the ratio it
 * implies against this run's reference ({@link Aim#minRatio}). A row whose measurement could not run has no
 * result ({@code NaN}) and says why in {@code note}.
 */
public record Row(String operation, String size, double result, String unit, String reference, double referenceValue,
        String referenceUnit, double ratio, Aim aim, String note, double cpuPerGiB, double referenceCpuPerGiB,
        boolean leastCpu) {

    /** A row without CPU figures (the component rows). */
    public Row(String operation, String size, double result, String unit, String reference, double referenceValue,
            String referenceUnit, double ratio, Aim aim, String note) {
        this(operation, size, result, unit, reference, referenceValue, referenceUnit, ratio, aim, note, Double.NaN,
                Double.NaN, false);
    }

    /** The aim of a row: the smallest acceptable ratio, and how the issue put it. */
    public record Aim(double minRatio, String text) {
    }

    public static Row rate(String operation, String size, double result, String unit, String reference,
            double referenceValue, double minRatio, String note) {
        return new Row(operation, size, result, unit, reference, referenceValue, unit, result / referenceValue,
                new Aim(minRatio, String.format(Locale.ROOT, ">= %.2fx", minRatio)), note);
    }

    public static Row unavailable(String operation, String size, String reference, String aim, String why) {
        return new Row(operation, size, Double.NaN, "", reference, Double.NaN, "", Double.NaN,
                new Aim(Double.NaN, aim), "n/a: " + why);
    }

    public boolean measured() {
        return Double.isFinite(result) && Double.isFinite(referenceValue) && Double.isFinite(ratio);
    }

    /** "yes", "no", or "n/a" when the row has no number or the aim none. */
    public String met() {
        if (!measured() || Double.isNaN(aim.minRatio())) {
            return "n/a";
        }
        return ratio >= aim.minRatio() ? "yes" : "no";
    }

    public Row withNote(String more) {
        return new Row(operation, size, result, unit, reference, referenceValue, referenceUnit, ratio, aim,
                note.isEmpty() ? more : note + "; " + more, cpuPerGiB, referenceCpuPerGiB, leastCpu);
    }

    /** This row with the server CPU seconds per GiB of its path and of its reference's. */
    public Row withCpu(double perGiB, double referencePerGiB) {
        return new Row(operation, size, result, unit, reference, referenceValue, referenceUnit, ratio, aim, note,
                perGiB, referencePerGiB, leastCpu);
    }

    /** This row marked as the path that cost the server least CPU per GiB. */
    public Row asLeastCpu() {
        return new Row(operation, size, result, unit, reference, referenceValue, referenceUnit, ratio, aim, note,
                cpuPerGiB, referenceCpuPerGiB, true);
    }
}
