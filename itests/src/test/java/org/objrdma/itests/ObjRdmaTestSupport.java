package org.objrdma.itests;

import static org.ops4j.pax.exam.CoreOptions.maven;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.configureConsole;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.karafDistributionConfiguration;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.logLevel;

import java.io.ByteArrayOutputStream;
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

    @Inject
    protected BundleContext bundleContext;

    /** The options every test class starts from; subclasses add their own with {@link #options(Option...)}. */
    protected Option[] baseOptions() {
        String karafVersion = System.getProperty("karaf.version", "4.4.10");
        String distribution = System.getProperty("objrdma.distribution");
        if (distribution == null || !new File(distribution).isFile()) {
            throw new IllegalStateException("objrdma.distribution must name the built distribution tar.gz, was "
                    + distribution + " (build karaf-distribution first)");
        }
        String repo = System.getProperty("maven.repo.local", System.getProperty("user.home") + "/.m2/repository");
        List<Option> o = new ArrayList<>(List.of(
                karafDistributionConfiguration()
                        .frameworkUrl(new File(distribution).toURI().toString())
                        .karafVersion(karafVersion)
                        .name("objrdma")
                        .unpackDirectory(new File("target/exam"))
                        .useDeployFolder(false),
                logLevel(LogLevel.INFO),
                configureConsole().ignoreLocalConsole().ignoreRemoteShell(),
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
                // Each test class gets its own ssh and RMI ports so a slow shutdown never collides.
                editConfigurationFilePut("etc/org.apache.karaf.shell.cfg", "sshPort", "0"),
                editConfigurationFilePut("etc/org.apache.karaf.management.cfg", "rmiRegistryPort", "0"),
                editConfigurationFilePut("etc/org.apache.karaf.management.cfg", "rmiServerPort", "0")));
        return o.toArray(Option[]::new);
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
                T service = tracker.waitForService(SERVICE_TIMEOUT.toMillis());
                if (service == null) {
                    throw new AssertionError("no " + f + " within " + SERVICE_TIMEOUT);
                }
                return service;
            } finally {
                // the service object stays usable; the tracker only watched for it
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
     * Runs {@code command} in a Karaf shell session created through the {@link SessionFactory} and returns
     * what it printed (stdout and stderr together). Fails the test if the command throws.
     */
    protected String executeCommand(String command) throws Exception {
        SessionFactory factory = waitForService(SessionFactory.class, null);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        Session session = factory.create(System.in, out, out);
        try {
            Object result = session.execute(command);
            if (result != null) {
                out.println(result);
            }
            out.flush();
            return bytes.toString(StandardCharsets.UTF_8);
        } finally {
            session.close();
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

    /** The features repository URL of this build, for tests that install features themselves. */
    protected static String featuresUrl() {
        return maven().groupId("org.objrdma").artifactId("objrdma-features").type("xml").classifier("features")
                .version(System.getProperty("objrdma.version")).getURL();
    }
}
