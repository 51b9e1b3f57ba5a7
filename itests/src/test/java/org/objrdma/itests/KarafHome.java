package org.objrdma.itests;

import java.io.File;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The objrdma distribution unpacked into a directory and run as a user runs it, {@code bin/karaf server}, so
 * bin/setenv, the JDK 25 agent and the shipped configuration are what is tested. Output goes to
 * {@code console.log} in the Karaf home (appended across restarts).
 */
public final class KarafHome implements AutoCloseable {

    private final Path home;
    private Process karaf;

    private KarafHome(Path home) {
        this.home = home;
    }

    /** The tar.gz named by the {@code objrdma.distribution} system property (set by the itests POM). */
    public static Path distributionArchive() {
        String distribution = System.getProperty("objrdma.distribution");
        if (distribution == null || !new File(distribution).isFile()) {
            throw new IllegalStateException("objrdma.distribution must name the built distribution tar.gz, was "
                    + distribution + " (build karaf-distribution first)");
        }
        return Path.of(distribution).toAbsolutePath();
    }

    /** Unpacks {@code archive} into {@code target} (emptied first). */
    public static KarafHome unpack(Path archive, Path target) throws Exception {
        deleteTree(target);
        Files.createDirectories(target);
        Processes.run(target, Duration.ofSeconds(120), "tar", "xzf", archive.toString(), "-C", target.toString());
        try (var dirs = Files.list(target)) {
            return new KarafHome(dirs.filter(Files::isDirectory).findFirst().orElseThrow());
        }
    }

    public Path home() {
        return home;
    }

    /** Appends {@code text} to {@code etc/<file>} (created if missing); later keys win in Karaf's cfg files. */
    public void appendConfig(String file, String text) throws IOException {
        Files.writeString(home.resolve("etc").resolve(file), "\n" + text + "\n", StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    /**
     * Adds the Karaf admin user {@code karaf} with a fresh random password to {@code etc/users.properties}, as a
     * user (or {@code ./run.sh}) does before logging in over ssh or JMX: the distribution ships no usable login
     * (issue 24). Returns the password.
     */
    public String addAdminUser() throws IOException {
        byte[] random = new byte[18];
        new java.security.SecureRandom().nextBytes(random);
        String password = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        appendConfig("users.properties", "karaf = " + password + ",_g_:admingroup");
        return password;
    }

    /** The JVM {@code bin/karaf} started (its child), once it runs. */
    public ProcessHandle jvm() {
        if (karaf == null) {
            throw new IllegalStateException("not started");
        }
        return karaf.descendants().filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false))
                .findFirst().orElseThrow(() -> new IllegalStateException("bin/karaf has not started its JVM"));
    }

    /** Starts {@code bin/karaf server} in the background. */
    public void start() throws IOException {
        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/karaf").toString(), "server")
                .directory(home.toFile())
                .redirectErrorStream(true)
                .redirectOutput(Redirect.appendTo(home.resolve("console.log").toFile()));
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        karaf = pb.start();
    }

    /** Whether the started Karaf is running (false once killed or exited). */
    public boolean isAlive() {
        return karaf != null && karaf.isAlive();
    }

    /** Throws with a pointer to the log when the started Karaf has exited. */
    public void assertRunning() {
        if (karaf != null && !karaf.isAlive()) {
            throw new AssertionError("Karaf exited with " + karaf.exitValue() + "; see " + home.resolve("console.log"));
        }
    }

    /**
     * A remote JMX connection through Karaf's JAAS login and RBAC guard, as {@code user}. The RMI connector comes
     * up some seconds after the JVM: refused connections are retried until {@code timeout}, as long as Karaf runs.
     */
    public javax.management.remote.JMXConnector connectJmx(int rmiServerPort, int rmiRegistryPort, String user,
            String password, Duration timeout) throws Exception {
        javax.management.remote.JMXServiceURL url = new javax.management.remote.JMXServiceURL(
                "service:jmx:rmi://127.0.0.1:" + rmiServerPort + "/jndi/rmi://127.0.0.1:" + rmiRegistryPort
                        + "/karaf-root");
        java.util.Map<String, Object> env = java.util.Map.of(javax.management.remote.JMXConnector.CREDENTIALS,
                new String[] {user, password});
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                return javax.management.remote.JMXConnectorFactory.connect(url, env);
            } catch (IOException notYet) {
                assertRunning();
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
                TimeUnit.MILLISECONDS.sleep(500);
            } catch (SecurityException refused) {
                // the connector can answer before Karaf's JAAS realm is registered: that is boot not finished, not
                // a refusal of these credentials (which is thrown at once)
                if (!realmNotYetRegistered(refused) || System.nanoTime() > deadline) {
                    throw refused;
                }
                assertRunning();
                TimeUnit.MILLISECONDS.sleep(500);
            }
        }
    }

    private static boolean realmNotYetRegistered(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof javax.security.auth.login.LoginException
                    && String.valueOf(c.getMessage()).startsWith("No LoginModules configured")) {
                return true;
            }
        }
        return false;
    }

    /**
     * SIGKILL to bin/karaf and the JVM it started: a crash, no shutdown hooks, no flushing; returns when both
     * are gone.
     */
    public void kill() throws InterruptedException {
        for (ProcessHandle p : tree()) {
            p.destroyForcibly();
        }
        awaitExit(tree(), Duration.ofSeconds(30));
        karaf = null;
    }

    /** Stops the whole process tree politely (SIGTERM lets Karaf shut down cleanly), forcibly after 60 s. */
    public void stop() throws InterruptedException {
        List<ProcessHandle> tree = tree();
        tree.forEach(ProcessHandle::destroy);
        awaitExit(tree, Duration.ofSeconds(60));
        for (ProcessHandle p : tree) {
            p.destroyForcibly();
        }
        karaf = null;
    }

    @Override
    public void close() {
        try {
            stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private List<ProcessHandle> tree() {
        if (karaf == null) {
            return List.of();
        }
        // bin/karaf runs the JVM as a child process: never leave a JVM behind
        List<ProcessHandle> tree = new ArrayList<>(karaf.descendants().toList());
        tree.add(karaf.toHandle());
        return tree;
    }

    private static void awaitExit(List<ProcessHandle> tree, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (ProcessHandle p : tree) {
            while (p.isAlive() && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(100);
            }
        }
    }

    /** Deletes {@code p} and everything below it, if it exists. */
    public static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (var walk = Files.walk(p)) {
            for (Path x : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(x);
            }
        }
    }
}
