package org.objrdma.itests;

import static org.ops4j.pax.exam.CoreOptions.maven;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.configureConsole;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.karafDistributionConfiguration;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.keepRuntimeFolder;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.logLevel;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.security.AccessControlContext;
import java.security.AccessController;
import java.security.PrivilegedActionException;
import java.security.PrivilegedExceptionAction;
import javax.security.auth.Subject;
import javax.security.auth.SubjectDomainCombiner;
import org.apache.karaf.jaas.boot.principal.RolePrincipal;
import org.apache.karaf.jaas.boot.principal.UserPrincipal;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.inject.Inject;
import org.apache.karaf.shell.api.console.Session;
import org.apache.karaf.shell.api.console.SessionFactory;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.karaf.options.LogLevelOption.LogLevel;
import org.ops4j.pax.exam.options.extra.VMOption;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Filter;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.util.tracker.ServiceTracker;

/**
 * What every objrdma Pax Exam test shares: the options that boot the objrdma distribution on JDK 25,
 * and helpers to wait for a service, edit a configuration, and run a Karaf shell command.
 */
public abstract class ObjRdmaTestSupport {

    /** Generous: the machines that run CI have 2 cores and may be busy. */
    protected static final Duration SERVICE_TIMEOUT = Duration.ofSeconds(30);

    protected static final String SSH_PORT_PROPERTY = "objrdma.it.ssh.port";

    @Inject
    protected BundleContext bundleContext;

    /** The options every test class starts from; subclasses add their own with {@link #options(Option...)}. */
    protected Option[] baseOptions() {
        return baseOptions(requiredFile("objrdma.distribution", "the built distribution tar.gz (build karaf-distribution first)"),
                "objrdma");
    }

    /** The file a failsafe system property names, or an exception saying what it should be. */
    protected static File requiredFile(String property, String what) {
        String path = System.getProperty(property);
        if (path == null || !new File(path).isFile()) {
            throw new IllegalStateException(property + " must name " + what + ", was " + path);
        }
        return new File(path);
    }

    /**
     * The options that boot the Karaf distribution archive {@code distribution} on JDK 25: ours, or a stock
     * Karaf to which the caller adds the JDK 25 agent as {@code lib/agent/objrdma-karaf-jdk25-agent.jar}.
     */
    protected Option[] baseOptions(File distribution, String name) {
        String karafVersion = System.getProperty("karaf.version", "4.4.10");
        String repo = System.getProperty("maven.repo.local", System.getProperty("user.home") + "/.m2/repository");
        int sshPort = freePort();
        List<Option> o = new ArrayList<>(List.of(
                karafDistributionConfiguration()
                        .frameworkUrl(distribution.toURI().toString())
                        .karafVersion(karafVersion)
                        .name(name)
                        .unpackDirectory(new File("target/exam"))
                        .useDeployFolder(false),
                logLevel(LogLevel.INFO),
                configureConsole().ignoreLocalConsole(),
                // The JDK 25 agent (lib/agent) makes Karaf's shell, JMX guard and EventAdmin work on JDK 24+;
                // bin/setenv adds it for bin/karaf, Exam forks java in the Karaf home, so add it here.
                vm("-javaagent:lib/agent/objrdma-karaf-jdk25-agent.jar"),
                // Pax Exam forks java itself, not bin/karaf: repeat what bin/karaf and bin/setenv add.
                vm("--add-reads=java.xml=java.logging"),
                vm("--add-exports=java.base/org.apache.karaf.specs.locator=java.xml,ALL-UNNAMED"),
                vm("--patch-module"), vm("java.base=lib/endorsed/org.apache.karaf.specs.locator-" + karafVersion + ".jar"),
                vm("--patch-module"), vm("java.xml=lib/endorsed/org.apache.karaf.specs.java.xml-" + karafVersion + ".jar"),
                vm("--add-opens"), vm("java.base/java.security=ALL-UNNAMED"),
                vm("--add-opens"), vm("java.base/java.net=ALL-UNNAMED"),
                vm("--add-opens"), vm("java.base/java.lang=ALL-UNNAMED"),
                vm("--add-opens"), vm("java.base/java.util=ALL-UNNAMED"),
                vm("--add-opens"), vm("java.naming/javax.naming.spi=ALL-UNNAMED"),
                vm("--add-opens"), vm("java.rmi/sun.rmi.transport.tcp=ALL-UNNAMED"),
                vm("--add-exports=java.base/sun.net.www.protocol.http=ALL-UNNAMED"),
                vm("--add-exports=java.base/sun.net.www.protocol.https=ALL-UNNAMED"),
                vm("--add-exports=java.base/sun.net.www.protocol.jar=ALL-UNNAMED"),
                vm("--add-exports=jdk.naming.rmi/com.sun.jndi.url.rmi=ALL-UNNAMED"),
                vm("-classpath"), vm("lib/jdk9plus/*" + File.pathSeparator + "lib/boot/*"),
                vm("--enable-native-access=ALL-UNNAMED"),
                vm("-Xmx512m"),
                // Bundles Exam adds come from the local repository Maven already filled.
                editConfigurationFilePut("etc/org.ops4j.pax.url.mvn.cfg",
                        "org.ops4j.pax.url.mvn.localRepository", repo),
                // Each test class gets a free ssh port so a slow shutdown of the last one never collides; the
                // container learns it through a system property. (Exam owns the RMI registry port itself.)
                editConfigurationFilePut("etc/org.apache.karaf.shell.cfg", "sshPort", String.valueOf(sshPort)),
                // Exam points Karaf's RMI registry at its own; the JMX connector port must not be the fixed
                // 44444, which the previous test class's container may still hold while it shuts down.
                editConfigurationFilePut("etc/org.apache.karaf.management.cfg", "rmiServerPort",
                        String.valueOf(freePort())),
                // The distribution boots its features asynchronously (bin/karaf comes up at once), but while
                // they install, Karaf's resolver hook refuses to resolve any other bundle, and that includes
                // Exam's probe ("Resolver hook prevented resolution"). Exam needs the boot to be done first.
                editConfigurationFilePut("etc/org.apache.karaf.features.cfg", "featuresBootAsynchronous", "false"),
                systemProperty(SSH_PORT_PROPERTY).value(String.valueOf(sshPort))));
        if (Boolean.getBoolean("objrdma.it.keep")) {
            o.add(keepRuntimeFolder()); // -Dobjrdma.it.keep=true keeps target/exam/<uuid>/ for its logs
        }
        return o.toArray(Option[]::new);
    }

    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * A TCP port free right now, drawn at random from 10000-29999: below Linux's ephemeral range, where Pax
     * Exam picks its own ports with ephemeral binds just after this runs and could get the very same one.
     */
    public static int freePort() {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = 10_000 + random.nextInt(20_000);
            if (HANDED_OUT.contains(port)) {
                continue;
            }
            try (java.net.ServerSocket s = new java.net.ServerSocket()) {
                s.bind(new java.net.InetSocketAddress(port));
                HANDED_OUT.add(port);
                return port;
            } catch (java.io.IOException busy) {
                // taken; try another
            }
        }
        throw new IllegalStateException("no free port in 10000-29999 after 200 attempts");
    }

    /** Inside the container: the port of Karaf's ssh server. */
    protected static int sshPort() {
        return Integer.getInteger(SSH_PORT_PROPERTY);
    }

    /** {@link #baseOptions()} plus {@code extra}. */
    protected Option[] options(Option... extra) {
        List<Option> all = new ArrayList<>(List.of(baseOptions()));
        all.addAll(List.of(extra));
        return all.toArray(Option[]::new);
    }

    protected static VMOption vm(String option) {
        return new VMOption(option);
    }

    /** Waits up to {@link #SERVICE_TIMEOUT} for a service of {@code type} matching {@code filter} (may be null). */
    protected <T> T waitForService(Class<T> type, String filter) {
        BundleContext ctx = context();
        try {
            String f = "(objectClass=" + type.getName() + ")";
            if (filter != null && !filter.isEmpty()) {
                f = "(&" + f + filter + ")";
            }
            Filter osgiFilter = ctx.createFilter(f);
            ServiceTracker<T, T> tracker = new ServiceTracker<>(ctx, osgiFilter, null);
            tracker.open(true);
            try {
                if (tracker.waitForService(SERVICE_TIMEOUT.toMillis()) == null) {
                    throw new AssertionError("no " + f + " within " + SERVICE_TIMEOUT);
                }
                // Get it once more on the test's own account: closing the tracker ungets its copy, and a
                // service factory (Config Admin, DS delayed components) disposes the object at the last unget.
                // The test keeps this one until its container stops.
                T service = ctx.getService(tracker.getServiceReference());
                if (service == null) {
                    throw new AssertionError(f + " went away while being fetched");
                }
                return service;
            } finally {
                tracker.close();
            }
        } catch (InvalidSyntaxException e) {
            throw new IllegalArgumentException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting for " + type.getName(), e);
        }
    }

    /** Replaces the properties of configuration {@code pid} (location unbound) and returns at once. */
    protected void updateConfig(String pid, Dictionary<String, ?> properties) throws Exception {
        ConfigurationAdmin ca = waitForService(ConfigurationAdmin.class, null);
        Configuration c = ca.getConfiguration(pid, "?");
        c.update(new Hashtable<>(toMap(properties)));
    }

    /** Deletes configuration {@code pid} if present. */
    protected void deleteConfig(String pid) throws Exception {
        ConfigurationAdmin ca = waitForService(ConfigurationAdmin.class, null);
        Configuration[] found = ca.listConfigurations("(service.pid=" + pid + ")");
        if (found != null) {
            for (Configuration c : found) {
                c.delete();
            }
        }
    }

    private static java.util.Map<String, Object> toMap(Dictionary<String, ?> d) {
        java.util.Map<String, Object> m = new java.util.HashMap<>();
        for (var keys = d.keys(); keys.hasMoreElements(); ) {
            String k = keys.nextElement();
            m.put(k, d.get(k));
        }
        return m;
    }

    /**
     * Runs {@code command} in a Karaf shell session created through the {@link SessionFactory}, as the admin
     * user {@code karaf}, and returns what it printed (stdout and stderr together). Throws what the command
     * threw.
     */
    protected String executeCommand(String command) throws Exception {
        // Exam starts tests once its own bundles are up, while Karaf may still be installing boot features:
        // a command whose bundle is not started yet is "not found" for a moment, not for good.
        long deadline = System.nanoTime() + SERVICE_TIMEOUT.toNanos();
        while (true) {
            try {
                return executeCommandOnce(command);
            } catch (Exception e) {
                if (!e.getClass().getSimpleName().equals("CommandNotFoundException") || System.nanoTime() > deadline) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
        }
    }

    private String executeCommandOnce(String command) throws Exception {
        SessionFactory factory = waitForService(SessionFactory.class, null);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        return runAs(subject("karaf", "admin", "manager", "viewer", "systembundles", "ssh"), () -> {
            Session session = factory.create(new ByteArrayInputStream(new byte[0]), out, out);
            try {
                Object result = session.execute(command);
                if (result instanceof Object[] array) {
                    out.println(java.util.Arrays.deepToString(array)); // e.g. scr:list returns DTOs
                } else if (result != null) {
                    out.println(result);
                }
                out.flush();
                return bytes.toString(StandardCharsets.UTF_8);
            } finally {
                session.close();
            }
        });
    }

    /** A JAAS subject as Karaf's login modules make it: a user principal and role principals. */
    protected static Subject subject(String user, String... roles) {
        Subject subject = new Subject();
        subject.getPrincipals().add(new UserPrincipal(user));
        for (String role : roles) {
            subject.getPrincipals().add(new RolePrincipal(role));
        }
        return subject;
    }

    /**
     * Runs {@code action} with {@code subject} bound the way Karaf binds it for ssh and console sessions
     * ({@code doPrivileged} with a {@link SubjectDomainCombiner}); on JDK 24+ that works only because the
     * objrdma JDK 25 agent rewrites this call too, so this helper also exercises the agent.
     */
    protected static <T> T runAs(Subject subject, PrivilegedExceptionAction<T> action) throws Exception {
        AccessControlContext acc = new AccessControlContext(AccessController.getContext(),
                new SubjectDomainCombiner(subject));
        try {
            return AccessController.doPrivileged(action, acc);
        } catch (PrivilegedActionException e) {
            throw e.getException();
        }
    }

    /**
     * Inside the container: true once a line of {@code data/log/karaf.log} holds every one of {@code parts}
     * (read as ISO-8859-1, so any byte decodes; the parts are ASCII).
     */
    protected static boolean logHasLine(String... parts) {
        File log = new File(System.getProperty("karaf.data"), "log/karaf.log");
        try (java.util.stream.Stream<String> lines = java.nio.file.Files.lines(log.toPath(),
                StandardCharsets.ISO_8859_1)) {
            return lines.anyMatch(l -> java.util.Arrays.stream(parts).allMatch(l::contains));
        } catch (java.io.IOException | java.io.UncheckedIOException notYet) {
            return false;
        }
    }

    /** Polls {@code condition} every 50 ms until it holds or {@code timeout} passed. */
    protected static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    /**
     * Waits until every objrdma bundle is ACTIVE and returns the ones that are not when the wait ends (empty
     * on success). Exam starts tests once its own bundles run, while Karaf may still be starting (or, after a
     * feature change, refreshing) boot features, so a bundle can be RESOLVED for a moment.
     */
    protected List<String> objrdmaBundlesNotActive() throws InterruptedException {
        long deadline = System.nanoTime() + SERVICE_TIMEOUT.toNanos();
        while (true) {
            List<String> notActive = new ArrayList<>();
            for (Bundle b : objrdmaBundles()) {
                if (b.getState() != Bundle.ACTIVE) {
                    notActive.add(b.getSymbolicName() + " state=" + b.getState());
                }
            }
            if (notActive.isEmpty() || System.nanoTime() > deadline) {
                return notActive;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    /** Every installed bundle whose symbolic name starts with {@code objrdma-}. */
    protected List<Bundle> objrdmaBundles() {
        List<Bundle> result = new ArrayList<>();
        for (Bundle b : context().getBundles()) {
            if (b.getSymbolicName() != null && b.getSymbolicName().startsWith("objrdma-")) {
                result.add(b);
            }
        }
        return result;
    }

    private BundleContext context() {
        if (bundleContext != null) {
            return bundleContext;
        }
        return FrameworkUtil.getBundle(getClass()).getBundleContext();
    }

    /**
     * objrdma-test-support in the container, for a test that registers its fakes as services there (the probe
     * imports {@code org.objrdma.testsupport} dynamically). That module is a bundle for this only: no feature ships
     * it. (Wrapping a plain jar does not work here: the distribution boots without pax-url-wrap's handler.)
     */
    protected static Option testSupportBundle() {
        return org.ops4j.pax.exam.CoreOptions.mavenBundle("org.objrdma", "objrdma-test-support",
                System.getProperty("objrdma.version"));
    }

    /** A call made with Configuration Admin held ({@link #withConfigAdmin}). */
    protected interface ConfigAdminCall {
        void run(ConfigurationAdmin ca) throws Exception;
    }

    /**
     * Holds Configuration Admin for the whole call. (Felix CM hands each bundle its own instance and disposes it
     * when the bundle's last use is released, so a service looked up through a tracker that is closed at once is
     * unusable.)
     */
    protected void withConfigAdmin(ConfigAdminCall call) throws Exception {
        waitForService(ConfigurationAdmin.class, null);
        ServiceReference<ConfigurationAdmin> ref = bundleContext.getServiceReference(ConfigurationAdmin.class);
        ConfigurationAdmin ca = bundleContext.getService(ref);
        try {
            call.run(ca);
        } finally {
            bundleContext.ungetService(ref);
        }
    }

    /** The features repository URL of this build, for tests that install features themselves. */
    protected static String featuresUrl() {
        return maven().groupId("org.objrdma").artifactId("objrdma-features").type("xml").classifier("features")
                .version(System.getProperty("objrdma.version")).getURL();
    }
}
