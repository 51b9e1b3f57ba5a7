package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The objrdma MBeans behind Karaf's JMX RBAC guard, over remote JMX into the started distribution (the guard
 * sits on the RMI connector, which Pax Exam takes over, so plain JUnit as {@link DistributionSmokeIT}): with
 * the stock {@code etc/jmx.acl.cfg} a viewer reads every attribute but may invoke no operation
 * ({@code value}, {@code cancel}, {@code unpin}), an admin may, and a user without a role reads nothing.
 */
public class RdmaJmxRbacIT {

    private static final Duration BOOT_TIMEOUT = Duration.ofSeconds(120);
    private static final String POOL = "org.objrdma:type=pool,name=staging";
    private static final String TELEMETRY = "org.objrdma:type=telemetry,name=counters";
    private static final String SESSIONS = "org.objrdma:type=sessions,name=rc";
    private static final String TRANSPORTS = "org.objrdma:type=transports,name=registry";
    private static final String GATEWAY = "org.objrdma:type=gateway,name=s3";
    private static KarafHome karaf;
    private static int registryPort;
    private static int serverPort;
    private static String adminPassword;

    @BeforeClass
    public static void startDistribution() throws Exception {
        karaf = KarafHome.unpack(KarafHome.distributionArchive(), Path.of("target", "jmx-rbac").toAbsolutePath());
        registryPort = ObjRdmaTestSupport.freePort();
        serverPort = ObjRdmaTestSupport.freePort();
        karaf.appendConfig("org.apache.karaf.management.cfg",
                "rmiRegistryPort = " + registryPort + "\nrmiServerPort = " + serverPort);
        karaf.appendConfig("org.apache.karaf.shell.cfg", "sshPort = " + ObjRdmaTestSupport.freePort());
        karaf.appendConfig("org.ops4j.pax.web.cfg", "org.osgi.service.http.port = " + ObjRdmaTestSupport.freePort());
        karaf.appendConfig("users.properties", "viewonly = viewonly,viewer\nnorole = norole");
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
    public void viewersReadAdminsInvokeAndNoRoleReadsNothing() throws Exception {
        try (JMXConnector admin = connect("karaf", adminPassword)) {
            MBeanServerConnection mbs = admin.getMBeanServerConnection();
            awaitRegistered(mbs, POOL, TELEMETRY, SESSIONS, TRANSPORTS, GATEWAY);
            long requests = (Long) mbs.invoke(new ObjectName(TELEMETRY), "value", new Object[] {"objrdma.s3.requests"},
                    new String[] {String.class.getName()});
            assertTrue(requests >= 0);
            String cancelled = (String) mbs.invoke(new ObjectName(SESSIONS), "cancel",
                    new Object[] {"00000000000000000000000000000000", "00".repeat(32)},
                    new String[] {String.class.getName(), String.class.getName()});
            assertEquals("an admin reaches the session manager, which knows no such session", "NO_SESSION", cancelled);
        }
        try (JMXConnector viewer = connect("viewonly", "viewonly")) {
            MBeanServerConnection mbs = viewer.getMBeanServerConnection();
            assertTrue((Long) mbs.getAttribute(new ObjectName(POOL), "Lent") >= 0);
            mbs.getAttribute(new ObjectName(TELEMETRY), "Counters");
            mbs.getAttribute(new ObjectName(SESSIONS), "Count");
            mbs.getAttribute(new ObjectName(TRANSPORTS), "Transports");
            assertTrue((Long) mbs.getAttribute(new ObjectName(GATEWAY), "Requests") >= 0);
            refused("value", () -> mbs.invoke(new ObjectName(TELEMETRY), "value",
                    new Object[] {"objrdma.s3.requests"}, new String[] {String.class.getName()}));
            refused("cancel", () -> mbs.invoke(new ObjectName(SESSIONS), "cancel",
                    new Object[] {"00000000000000000000000000000000", "00".repeat(32)},
                    new String[] {String.class.getName(), String.class.getName()}));
            refused("unpin", () -> mbs.invoke(new ObjectName(TRANSPORTS), "unpin",
                    new Object[] {"org.objrdma.session"}, new String[] {String.class.getName()}));
        }
        // a user without a role: Karaf's JMX login refuses it already; were it let in, the guard refuses the read
        refused("a login without a role reading the pool", () -> {
            try (JMXConnector nobody = connect("norole", "norole")) {
                return nobody.getMBeanServerConnection().getAttribute(new ObjectName(POOL), "Lent");
            }
        });
    }

    interface JmxCall {
        Object run() throws Exception;
    }

    private static void refused(String what, JmxCall call) throws Exception {
        try {
            call.run();
            fail(what + " was allowed");
        } catch (SecurityException expected) {
            // Karaf's guard refused it
        }
    }

    private static void awaitRegistered(MBeanServerConnection mbs, String... names) throws Exception {
        long deadline = System.nanoTime() + BOOT_TIMEOUT.toNanos();
        for (String name : names) {
            while (!mbs.isRegistered(new ObjectName(name))) {
                assertTrue(name + " never registered", System.nanoTime() < deadline);
                TimeUnit.MILLISECONDS.sleep(250);
            }
        }
    }

    private static JMXConnector connect(String user, String password) throws Exception {
        return karaf.connectJmx(serverPort, registryPort, user, password, BOOT_TIMEOUT);
    }
}
