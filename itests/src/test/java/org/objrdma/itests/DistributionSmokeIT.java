package org.objrdma.itests;

import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.TabularData;
import javax.management.remote.JMXConnector;
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
    private static KarafHome karaf;
    private static Path home;
    private static int registryPort;
    private static int serverPort;
    private static int sshPort;
    private static String adminPassword;

    @BeforeClass
    public static void startDistribution() throws Exception {
        karaf = KarafHome.unpack(KarafHome.distributionArchive(), Path.of("target", "smoke").toAbsolutePath());
        home = karaf.home();
        registryPort = ObjRdmaTestSupport.freePort();
        serverPort = ObjRdmaTestSupport.freePort();
        sshPort = ObjRdmaTestSupport.freePort();
        karaf.appendConfig("org.apache.karaf.management.cfg",
                "rmiRegistryPort = " + registryPort + "\nrmiServerPort = " + serverPort);
        karaf.appendConfig("org.apache.karaf.shell.cfg", "sshPort = " + sshPort);
        // a second user who can log in but holds no role: the guard must refuse it
        karaf.appendConfig("users.properties", "norole = norole");
        adminPassword = karaf.addAdminUser(); // the distribution ships no admin login
        karaf.start();
    }

    @AfterClass
    public static void stopDistribution() throws Exception {
        if (karaf != null) {
            karaf.stop();
        }
    }

    @Test
    public void remoteJmxGoesThroughJaasAndTheGuardOnJdk25() throws Exception {
        try (JMXConnector connector = connect("karaf", adminPassword)) {
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
        connect("karaf", adminPassword).close(); // Karaf is up
        String out = "";
        long deadline = System.nanoTime() + BOOT_TIMEOUT.toNanos();
        // ssh logins are refused until the JAAS realm is up, so retry the whole client run for a while
        // Karaf 4.4.10's client may cut its output short (an upstream flush bug, also on JDK 17), so this checks
        // that commands run and what they print, not that every line arrives
        while (!out.contains("objrdma-api") && System.nanoTime() < deadline) {
            // batch mode reads the commands from stdin (the documented way to script bin/client)
            out = runUnchecked(home, Duration.ofSeconds(60), "bundle:list -s | grep objrdma\n",
                    home.resolve("bin/client").toString(), "-a", String.valueOf(sshPort), "-u", "karaf",
                    "-p", adminPassword, "-b");
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

    private static JMXConnector connect(String user, String password) throws Exception {
        return karaf.connectJmx(serverPort, registryPort, user, password, BOOT_TIMEOUT);
    }

    /** What {@code command} printed, as plain text, whatever its exit status. */
    private static String runUnchecked(Path dir, Duration timeout, String stdin, String... command) throws Exception {
        // grep highlights its matches with ANSI colour codes; compare plain text
        return Processes.exec(dir, timeout, stdin, command).output().replaceAll("\u001B\\[[0-9;]*m", "");
    }
}
