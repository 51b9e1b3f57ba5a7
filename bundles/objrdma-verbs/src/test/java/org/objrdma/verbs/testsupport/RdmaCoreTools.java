package org.objrdma.verbs.testsupport;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs unmodified rdma-core / perftest programs (Debian's {@code ibverbs-utils} and {@code perftest}) on the
 * software device, in processes of their own: {@code LD_LIBRARY_PATH} points at the device built by
 * {@code src/test/native/build.sh}, so they load it instead of the real libibverbs and join the same fabric
 * as this JVM (the fabric directory is inherited through the environment).
 */
public final class RdmaCoreTools {
    private RdmaCoreTools() {
    }

    /** The absolute path of a Debian tool; the test is skipped, saying which package to install, if it is missing. */
    public static String require(String tool, String debianPackage) {
        for (String dir : List.of("/usr/bin", "/usr/local/bin", "/bin")) {
            Path p = Path.of(dir, tool);
            if (Files.isExecutable(p)) {
                return p.toString();
            }
        }
        assumeTrue(false, tool + " not installed (Debian package " + debianPackage + "): skipping the test that runs it"
                + " against the software verbs device");
        return null;
    }

    /** A TCP port free on loopback right now. */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * Waits until something listens on TCP {@code port} (read from {@code /proc/net/tcp*}, so the wait itself
     * takes no connection: pingpong's and perftest's servers accept exactly one, and their clients do not retry).
     */
    public static void awaitListening(int port, Run server) throws Exception {
        String hexPort = String.format(":%04X ", port);
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (System.nanoTime() < deadline) {
            for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
                Path p = Path.of(table);
                if (Files.isReadable(p)) {
                    for (String line : Files.readAllLines(p)) {
                        String[] f = line.trim().split("\\s+");
                        if (f.length > 3 && (f[1] + " ").endsWith(hexPort) && f[3].equals("0A")) {
                            return;
                        }
                    }
                }
            }
            if (!server.process().isAlive()) {
                throw new AssertionError("the server ended before it listened: " + server.output().get(5, TimeUnit.SECONDS));
            }
            Thread.sleep(10);
        }
        throw new AssertionError("nothing listens on port " + port + " after 20 s");
    }

    /** A started tool with its combined output collected in the background. */
    public record Run(Process process, CompletableFuture<String> output) {
        /** Waits for the exit; returns the output; fails the test if it does not end in time. */
        public String finish(long seconds) throws Exception {
            if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError(process.info().command().orElse("tool") + " did not finish in " + seconds
                        + " s; output so far: " + output.getNow("(none)"));
            }
            return output.get(5, TimeUnit.SECONDS);
        }

        public int exitValue() {
            return process.exitValue();
        }

        public void kill() {
            process.destroyForcibly();
        }
    }

    /** Starts {@code command} with the software device as its libibverbs. */
    public static Run start(String... command) throws IOException {
        return start(Map.of(), command);
    }

    /** Starts {@code command} with the software device as its libibverbs and {@code env} added to its environment. */
    public static Run start(Map<String, String> env, String... command) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(List.of(command))).redirectErrorStream(true);
        pb.environment().put("LD_LIBRARY_PATH", Path.of(SoftVerbs.library()).getParent().toString());
        pb.environment().putAll(env);
        Process p = pb.start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> {
            try {
                return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "(output lost: " + e + ")";
            }
        });
        return new Run(p, out);
    }
}
