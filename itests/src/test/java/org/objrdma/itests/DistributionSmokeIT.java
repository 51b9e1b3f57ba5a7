package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.TabularData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The distribution as a user starts it: {@code bin/karaf server} (so bin/setenv, the JDK 25 agent and the
 * eecap fixes are what is tested, not Pax Exam's launcher), then remote JMX over RMI through Karaf's JAAS
 * login and RBAC guard — the path that throws on a stock Karaf 4.4.10 on JDK 24+ — and {@code bin/client}.
 * Plain JUnit, no Pax Exam: Exam takes over the RMI registry port.
 */
public class DistributionSmokeIT {

    private static final Duration BOOT_TIMEOUT = Duration.ofSeconds(120);
    private static Path home;
    private static Process karaf;
    private static int registryPort;
    private static int serverPort;
    private static int sshPort;

    @BeforeClass
    public static void startDistribution() throws Exception {
        String distribution = System.getProperty("objrdma.distribution");
        Path target = Path.of("target", "smoke").toAbsolutePath();
        deleteTree(target);
        Files.createDirectories(target);
        run(target, Duration.ofSeconds(60), "tar", "xzf", new File(distribution).getAbsolutePath(), "-C", target.toString());
        try (var dirs = Files.list(target)) {
            home = dirs.filter(Files::isDirectory).findFirst().orElseThrow();
        }
        registryPort = ObjRdmaTestSupport.freePort();
        serverPort = ObjRdmaTestSupport.freePort();
        sshPort = ObjRdmaTestSupport.freePort();
        Path mgmt = home.resolve("etc/org.apache.karaf.management.cfg");
        Files.writeString(mgmt, "\nrmiRegistryPort = " + registryPort + "\nrmiServerPort = " + serverPort + "\n",
                StandardOpenOption.APPEND);
        Files.writeString(home.resolve("etc/org.apache.karaf.shell.cfg"), "\nsshPort = " + sshPort + "\n",
                StandardOpenOption.APPEND);
        // a second user who can log in but holds no role: the guard must refuse it
        Files.writeString(home.resolve("etc/users.properties"), "\nnorole = norole\n", StandardOpenOption.APPEND);

        ProcessBuilder pb = new ProcessBuilder(home.resolve("bin/karaf").toString(), "server")
                .directory(home.toFile())
                .redirectErrorStream(true)
                .redirectOutput(home.resolve("console.log").toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        karaf = pb.start();
    }

    @AfterClass
    public static void stopDistribution() throws Exception {
        if (karaf == null) {
            return;
        }
        // bin/karaf runs the JVM as a child process: stop the whole tree, politely first (SIGTERM lets Karaf
        // shut down cleanly), never leave a JVM behind
        List<ProcessHandle> tree = new java.util.ArrayList<>(karaf.descendants().toList());
        tree.add(karaf.toHandle());
        tree.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (ProcessHandle p : tree) {
            while (p.isAlive() && System.nanoTime() < deadline) {
                TimeUnit.MILLISECONDS.sleep(100);
            }
            if (p.isAlive()) {
                p.destroyForcibly();
            }
        }
    }

    @Test
    public void remoteJmxGoesThroughJaasAndTheGuardOnJdk25() throws Exception {
        try (JMXConnector connector = connect("karaf", "karaf")) {
            MBeanServerConnection mbs = connector.getMBeanServerConnection();
            ObjectName bundleMBean = new ObjectName("org.apache.karaf:type=bundle,name=root");
            String vmVersion = (String) mbs.getAttribute(new ObjectName("java.lang:type=Runtime"), "VmVersion");
            assertTrue(vmVersion, vmVersion.startsWith(String.valueOf(Runtime.version().feature())));
            awaitObjrdmaBundles(mbs, bundleMBean);
        }
        try (JMXConnector connector = connect("norole", "norole")) {
            connector.getMBeanServerConnection()
                    .getAttribute(new ObjectName("org.apache.karaf:type=bundle,name=root"), "Bundles");
            fail("a user without roles read the bundle MBean");
        } catch (SecurityException expected) {
            // the guard refused it: RBAC sees the remote subject on JDK 25
        }
    }

    @Test
    public void binClientRunsCommands() throws Exception {
        connect("karaf", "karaf").close(); // Karaf is up
        String out = "";
        long deadline = System.nanoTime() + BOOT_TIMEOUT.toNanos();
        // ssh logins are refused until the JAAS realm is up, so retry the whole client run for a while
        // Karaf 4.4.10's client may cut its output short (an upstream flush bug, also on JDK 17), so this checks
        // that commands run and what they print, not that every line arrives
        while (!out.contains("objrdma-api") && System.nanoTime() < deadline) {
            // batch mode reads the commands from stdin (the documented way to script bin/client)
            out = runUnchecked(home, Duration.ofSeconds(60), "bundle:list -s | grep objrdma\n",
                    home.resolve("bin/client").toString(), "-a", String.valueOf(sshPort), "-u", "karaf",
                    "-p", "karaf", "-b");
            TimeUnit.MILLISECONDS.sleep(500);
        }
        assertTrue(out, out.lines().anyMatch(l -> l.contains("| Active |") && l.endsWith("objrdma-api")));
    }

    private static void awaitObjrdmaBundles(MBeanServerConnection mbs, ObjectName bundleMBean) throws Exception {
        long deadline = System.nanoTime() + BOOT_TIMEOUT.toNanos();
        while (true) {
            TabularData bundles = (TabularData) mbs.getAttribute(bundleMBean, "Bundles");
            long active = bundles.values().stream().map(Object::toString)
                    .filter(r -> r.contains("objrdma-session") && r.contains("Active")).count();
            if (active == 1) {
                return;
            }
            assertTrue("objrdma-session not Active: " + bundles.values(), System.nanoTime() < deadline);
            TimeUnit.MILLISECONDS.sleep(250);
        }
    }

    /** The RMI connector comes up some seconds after the JVM; retry refused connections until the boot timeout. */
    private static JMXConnector connect(String user, String password) throws Exception {
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi://127.0.0.1:" + serverPort
                + "/jndi/rmi://127.0.0.1:" + registryPort + "/karaf-root");
        Map<String, Object> env = new HashMap<>();
        env.put(JMXConnector.CREDENTIALS, new String[] {user, password});
        long deadline = System.nanoTime() + BOOT_TIMEOUT.toNanos();
        while (true) {
            try {
                return JMXConnectorFactory.connect(url, env);
            } catch (IOException notYet) {
                if (!karaf.isAlive()) {
                    fail("Karaf exited with " + karaf.exitValue() + "; see " + home.resolve("console.log"));
                }
                if (System.nanoTime() > deadline) {
                    throw notYet;
                }
                TimeUnit.MILLISECONDS.sleep(500);
            }
        }
    }

    /** What a finished command printed (stdout and stderr) and its exit status. */
    private record Ran(int exitValue, String output) {
    }

    /** Runs {@code command} in {@code dir} with {@code stdin}, the test JVM's JDK as JAVA_HOME. */
    private static Ran exec(Path dir, Duration timeout, String stdin, String... command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(List.of(command)).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        try (var in = p.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("timed out: " + String.join(" ", command));
        }
        return new Ran(p.exitValue(), out);
    }

    /** What {@code command} printed, as plain text, whatever its exit status. */
    private static String runUnchecked(Path dir, Duration timeout, String stdin, String... command) throws Exception {
        // grep highlights its matches with ANSI colour codes; compare plain text
        return exec(dir, timeout, stdin, command).output().replaceAll("\u001B\\[[0-9;]*m", "");
    }

    /** Runs {@code command} without input and fails the test unless it exits 0. */
    private static String run(Path dir, Duration timeout, String... command) throws Exception {
        Ran ran = exec(dir, timeout, "", command);
        assertEquals(String.join(" ", command) + ": " + ran.output(), 0, ran.exitValue());
        return ran.output();
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (var walk = Files.walk(p)) {
            for (Path x : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(x);
            }
        }
    }
}
