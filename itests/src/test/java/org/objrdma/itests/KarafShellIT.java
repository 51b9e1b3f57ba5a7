package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Hashtable;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.lang.management.ManagementFactory;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.TabularData;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.channel.ChannelShell;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.event.Event;
import org.osgi.service.event.EventAdmin;
import org.osgi.service.event.EventConstants;
import org.osgi.service.event.EventHandler;

/**
 * Karaf as a user meets it, on JDK 25: shell commands through the session factory and over ssh, EventAdmin
 * dispatch, and JMX reads through the platform MBean server as an authenticated subject. The shell, ssh
 * and EventAdmin parts fail on a stock Karaf 4.4.10 on JDK 24+ ({@code Subject.getSubject} throws); the JDK 25
 * agent fixes them.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class KarafShellIT extends ObjRdmaTestSupport {

    private static final Duration SSH_TIMEOUT = Duration.ofSeconds(30);
    /** The admin password this run sets (the distribution ships no login), passed into the container. */
    private static final String ADMIN_PASSWORD_PROPERTY = "objrdma.it.admin.password";

    @Configuration
    public Option[] config() {
        byte[] random = new byte[18];
        new java.security.SecureRandom().nextBytes(random);
        String password = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(random);
        return options(
                org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut(
                        "etc/users.properties", "karaf", password + ",_g_:admingroup"),
                org.ops4j.pax.exam.CoreOptions.systemProperty(ADMIN_PASSWORD_PROPERTY).value(password));
    }

    @Test
    public void bundleListShowsObjrdmaBundlesActive() throws Exception {
        String out = executeCommand("bundle:list -s -t 0");
        assertTrue(out, out.contains("objrdma-api"));
        assertTrue(out, out.lines().anyMatch(l -> l.contains("objrdma-telemetry") && l.contains("Active")));
        // -t 0 shows system bundles only to a subject with the systembundles role: proves RBAC sees the subject
        assertTrue(out, out.contains("org.apache.felix.framework"));
    }

    @Test
    public void scrListShowsObjrdmaComponents() throws Exception {
        String out = executeCommand("scr:list");
        // Felix SCR's scr:list returns DTOs that the console formats; here they are printed as DTO text
        assertTrue(out, out.contains("org.objrdma.telemetry"));
    }

    @Test
    public void eventadminInstallsAndDispatches() throws Exception {
        executeCommand("feature:install eventadmin");
        String features = executeCommand("feature:list -i");
        assertTrue(features, features.lines().anyMatch(l -> l.startsWith("eventadmin") && l.contains("Started")));

        CountDownLatch received = new CountDownLatch(1);
        AtomicReference<Object> payload = new AtomicReference<>();
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(EventConstants.EVENT_TOPIC, "org/objrdma/itests/ping");
        ServiceRegistration<EventHandler> reg = bundleContext.registerService(EventHandler.class, e -> {
            payload.set(e.getProperty("n"));
            received.countDown();
        }, props);
        try {
            EventAdmin eventAdmin = waitForService(EventAdmin.class, null);
            eventAdmin.postEvent(new Event("org/objrdma/itests/ping", Map.of("n", 42)));
            assertTrue("EventAdmin did not dispatch (JDK 25 getSubject failure?)", received.await(10, TimeUnit.SECONDS));
            assertEquals(42, payload.get());
        } finally {
            reg.unregister();
        }
    }

    @Test
    public void logDisplayAndJaasCommandsWork() throws Exception {
        String log = executeCommand("log:display");
        assertTrue("log:display printed nothing", log.lines().count() > 5);
        String realms = executeCommand("jaas:realm-list");
        assertTrue(realms, realms.contains("karaf"));
        assertTrue(realms, realms.contains("PropertiesLoginModule"));
        String whoami = executeCommand("jaas:whoami");
        assertTrue(whoami, whoami.contains("karaf"));
    }

    @Test
    public void sshSessionRunsCommands() throws Exception {
        String out = overSsh("bundle:list -s -t 0\nscr:list\njaas:realm-list\njaas:whoami\nlog:display\nlogout\n");
        assertTrue(out, out.contains("objrdma-api"));
        assertTrue(out, out.contains("org.objrdma.telemetry"));
        assertTrue(out, out.contains("PropertiesLoginModule"));
        assertTrue("ssh session was closed instead of running commands: " + out,
                !out.contains("Session has been closed"));
    }

    /**
     * JMX attributes read through the platform MBean server as an authenticated subject. In-process calls are
     * not checked by Karaf's RBAC guard (it sits on the RMI connector); the guarded remote path, which is what
     * broke on JDK 24+, is covered by {@link DistributionSmokeIT} against the started distribution (Pax Exam
     * takes over the RMI registry port, so it cannot be reached from here).
     */
    @Test
    public void jmxAttributesReadAsAnAuthenticatedSubject() throws Exception {
        MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
        ObjectName runtime = new ObjectName("java.lang:type=Runtime");
        ObjectName bundleMBean = new ObjectName("org.apache.karaf:type=bundle,name=root");

        String vmVersion = runAs(subject("karaf", "viewer"), () -> (String) mbs.getAttribute(runtime, "VmVersion"));
        assertTrue(vmVersion, vmVersion.startsWith(String.valueOf(Runtime.version().feature())));
        TabularData bundles = runAs(subject("karaf", "admin"), () -> (TabularData) mbs.getAttribute(bundleMBean, "Bundles"));
        assertTrue("bundle MBean lists no objrdma bundle", bundles.values().toString().contains("objrdma-api"));


    }

    /** Logs in as karaf with the password this run set, over ssh, feeds {@code script} to an interactive shell, returns everything printed. */
    private String overSsh(String script) throws Exception {
        try (SshClient client = SshClient.setUpDefaultClient()) {
            client.setServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE);
            client.start();
            try (ClientSession session = client.connect("karaf", "127.0.0.1", sshPort())
                    .verify(SSH_TIMEOUT).getSession()) {
                session.addPasswordIdentity(System.getProperty(ADMIN_PASSWORD_PROPERTY));
                session.auth().verify(SSH_TIMEOUT);
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                try (ChannelShell shell = session.createShellChannel()) {
                    shell.setIn(new ByteArrayInputStream(script.getBytes(StandardCharsets.UTF_8)));
                    shell.setOut(out);
                    shell.setErr(out);
                    shell.open().verify(SSH_TIMEOUT);
                    shell.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), SSH_TIMEOUT);
                }
                return out.toString(StandardCharsets.UTF_8);
            }
        }
    }
}
