package org.objrdma.itests;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs external commands for the tests that drive real programs (bin/karaf, bin/client, the aws CLI,
 * s3cmd, rclone, curl): output captured, a timeout that kills the command, the test JVM's JDK as JAVA_HOME.
 */
public final class Processes {

    /** What a finished command printed (stdout and stderr together) and its exit status. */
    public record Ran(int exitValue, String output) {
    }

    private Processes() {
    }

    /** Runs {@code command} in {@code dir} with {@code stdin}. */
    public static Ran exec(Path dir, Duration timeout, String stdin, String... command) throws Exception {
        return exec(dir, timeout, stdin, Map.of(), command);
    }

    /**
     * Runs {@code command} in {@code dir} with {@code stdin} and {@code environment} added to (or, for a null
     * value, removed from) the inherited environment. A command still running after {@code timeout} is killed
     * and reported as exit status -1 with what it printed so far.
     */
    public static Ran exec(Path dir, Duration timeout, String stdin, Map<String, String> environment,
            String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(List.of(command)).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        environment.forEach((k, v) -> {
            if (v == null) {
                pb.environment().remove(k);
            } else {
                pb.environment().put(k, v);
            }
        });
        Process p = pb.start();
        // read while it runs: a command that fills the pipe would otherwise never exit
        CompletableFuture<byte[]> out = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getInputStream().readAllBytes();
            } catch (java.io.IOException e) {
                return e.toString().getBytes(StandardCharsets.UTF_8);
            }
        });
        try (var in = p.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        } catch (java.io.IOException exitedEarly) {
            // the command did not read its input; its exit status says the rest
        }
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor();
            return new Ran(-1, "timed out after " + timeout + ": " + String.join(" ", command) + "\n"
                    + new String(out.get(10, TimeUnit.SECONDS), StandardCharsets.UTF_8));
        }
        return new Ran(p.exitValue(), new String(out.get(), StandardCharsets.UTF_8));
    }

    /** Runs {@code command} without input and throws unless it exits 0; returns what it printed. */
    public static String run(Path dir, Duration timeout, String... command) throws Exception {
        Ran ran = exec(dir, timeout, "", command);
        if (ran.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " exited " + ran.exitValue() + ": " + ran.output());
        }
        return ran.output();
    }
}
