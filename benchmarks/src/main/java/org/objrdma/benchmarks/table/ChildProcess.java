package org.objrdma.benchmarks.table;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A program the table runs beside itself: iperf3, or a module's benchmark main in a JVM of its own on this
 * JVM's class path (so it starts with a fresh heap and JIT, like a JMH fork). Its standard error goes to a log
 * file in the output directory; its standard output is returned.
 */
final class ChildProcess {
    private ChildProcess() {
    }

    static List<String> java(Path log, String mainClass, String... args) throws IOException, InterruptedException {
        return run(log, javaCommand(mainClass, args));
    }

    static List<String> javaCommand(String mainClass, String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx2g", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), mainClass));
        cmd.addAll(List.of(args));
        return cmd;
    }

    static List<String> run(Path log, List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        p.getOutputStream().close();
        List<String> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                out.add(line);
            }
        }
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command.subList(0, Math.min(command.size(), 6)))
                    + "... failed (exit " + (p.isAlive() ? "timeout" : p.exitValue()) + "), see " + log);
        }
        return out;
    }

    /**
     * Runs {@code pb} to its end (at most 3 minutes), standard output and error together, whatever its exit code;
     * returns the lines with {@link #redacted} applied. Nothing is logged: the caller decides what is shown.
     */
    static List<String> runAllowingFailure(ProcessBuilder pb) throws IOException, InterruptedException {
        Process p = pb.redirectErrorStream(true).start();
        p.getOutputStream().close();
        List<String> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                out.add(redacted(line));
            }
        }
        if (!p.waitFor(3, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IOException(pb.command() + " did not end within 3 minutes");
        }
        return out;
    }

    /** Copies {@code p}'s standard output (and error) to {@code log}, {@link #redacted}, on a daemon thread. */
    static void pipeRedacted(Process p, Path log) {
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                    var w = java.nio.file.Files.newBufferedWriter(log, StandardCharsets.UTF_8,
                            java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND)) {
                for (String line; (line = r.readLine()) != null; ) {
                    w.write(redacted(line));
                    w.newLine();
                    w.flush();
                }
            } catch (IOException e) {
                // the process ended or the log cannot be written: the log only explains failures
            }
        }, "log " + log.getFileName());
        t.setDaemon(true);
        t.start();
    }

    /** run.sh prints the S3 secret key and, on a fresh home, the Karaf admin password: never into a log. */
    static String redacted(String line) {
        return line.contains("secret key") || line.contains("password") || line.contains("SECRET")
                ? "(a line holding a secret, not kept by the benchmark)" : line;
    }
}
