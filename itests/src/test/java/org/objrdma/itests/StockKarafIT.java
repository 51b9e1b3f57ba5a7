package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.editConfigurationFilePut;
import static org.ops4j.pax.exam.karaf.options.KarafDistributionOption.replaceConfigurationFile;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.CoreOptions;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.OptionUtils;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;

/**
 * objrdma on a stock Apache Karaf 4.4.10 (the apache-karaf tar.gz from Maven Central, not our distribution):
 * the same JDK 25 additions our distribution carries (the objrdma JDK 25 agent in {@code lib/agent},
 * {@code etc/custom.properties} with the JavaSE 25 execution environment), then {@code feature:repo-add} of
 * this build's features repository and {@code feature:install objrdma} from the shell. Every objrdma bundle
 * is then active and the S3 gateway answers over HTTP. Before the umbrella, each layer feature is installed
 * on its own in dependency order ({@link #LAYERS}), and after each one its bundle is ACTIVE, every bundle in
 * the framework is, and the services the layer publishes are registered.
 *
 * <p>The artifacts of this build come from the {@code system/} directory of the distribution this build made
 * (unpacked to {@code target/objrdma-build-repo}), put first in pax-url-aether's default repositories, and
 * remote repositories are switched off, so nothing is fetched from the network and the local repository's
 * older objrdma snapshots are never used.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class StockKarafIT extends ObjRdmaTestSupport {
    private static final String HTTP_PORT_PROPERTY = "objrdma.it.http.port";
    private static final String VERSION_PROPERTY = "objrdma.it.version";

    @Configuration
    public Option[] config() throws Exception {
        File stock = requiredFile("objrdma.stock.karaf", "the apache-karaf-4.4.10.tar.gz of Maven Central");
        File agent = requiredFile("objrdma.jdk25.agent", "the objrdma-karaf-jdk25-agent jar (build jdk25-agent)");
        File customProperties = requiredFile("objrdma.custom.properties", "the distribution's etc/custom.properties");
        File repository = buildRepository(requiredFile("objrdma.distribution", "the built distribution tar.gz"));
        int httpPort = freePort();
        return OptionUtils.combine(baseOptions(stock, "stock-karaf"),
                replaceConfigurationFile("lib/agent/objrdma-karaf-jdk25-agent.jar", agent),
                replaceConfigurationFile("etc/custom.properties", customProperties),
                editConfigurationFilePut("etc/org.ops4j.pax.url.mvn.cfg", "org.ops4j.pax.url.mvn.defaultRepositories",
                        repository.toURI() + "@id=objrdma.build@snapshots,"
                                + "${karaf.home.uri}system@id=system.repository@snapshots"),
                editConfigurationFilePut("etc/org.ops4j.pax.url.mvn.cfg", "org.ops4j.pax.url.mvn.repositories", ""),
                editConfigurationFilePut("etc/org.ops4j.pax.web.cfg", "org.osgi.service.http.port",
                        String.valueOf(httpPort)),
                CoreOptions.systemProperty(HTTP_PORT_PROPERTY).value(String.valueOf(httpPort)),
                // the version of this build, for the features repository URL the test adds inside the container
                CoreOptions.systemProperty(VERSION_PROPERTY).value(System.getProperty("objrdma.version")));
    }

    /** {@code system/} of our distribution archive, unpacked once per build: a Maven repository of this build. */
    private static File buildRepository(File distribution) throws IOException, InterruptedException {
        File target = new File("target/objrdma-build-repo").getAbsoluteFile();
        File marker = new File(target, ".from-" + distribution.lastModified());
        if (marker.isFile()) {
            return new File(target, "system");
        }
        target.mkdirs();
        Process tar = new ProcessBuilder("tar", "xzf", distribution.getAbsolutePath(), "-C", target.getPath(),
                "--strip-components=1", "--wildcards", "*/system/*").inheritIO().start();
        if (!tar.waitFor(120, TimeUnit.SECONDS) || tar.exitValue() != 0) {
            throw new IOException("could not unpack system/ of " + distribution);
        }
        marker.createNewFile();
        return new File(target, "system");
    }

    @Test
    public void featureInstallObjrdmaOnStockKarafStartsEveryBundleAndTheGatewayAnswers() throws Exception {
        // stock Karaf: nothing of objrdma yet
        assertEquals(List.of(), objrdmaBundles());
        String version = System.getProperty(VERSION_PROPERTY);
        String added = executeCommand("feature:repo-add mvn:org.objrdma/objrdma-features/" + version + "/xml/features");
        assertTrue(added, !added.toLowerCase().contains("error"));
        installEveryLayerAlone();
        executeCommand("feature:install objrdma");
        Set<String> installed = new TreeSet<>();
        for (Bundle b : objrdmaBundles()) {
            installed.add(b.getSymbolicName());
        }
        assertTrue("installed: " + installed, installed.containsAll(FoundationIT.EXPECTED_BUNDLES));
        List<String> notActive = objrdmaBundlesNotActive();
        assertTrue("not active: " + notActive, notActive.isEmpty());
        String features = executeCommand("feature:list -i --no-format");
        assertTrue(features, features.contains("objrdma-s3") && features.contains("objrdma-shell"));
        // the feature's configfile wrote the default etc file (the mvn: URL handler is up at run time)
        assertTrue(new File(System.getProperty("karaf.etc"), "org.objrdma.staging.cfg").isFile());

        // the gateway: an unsigned ListBuckets is refused the S3 way (an XML <Error> naming its code)
        int port = Integer.getInteger(HTTP_PORT_PROPERTY);
        String[] answer = new String[2];
        await("the S3 gateway answering on port " + port, SERVICE_TIMEOUT, () -> {
            try {
                HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + "/").toURL()
                        .openConnection();
                c.setConnectTimeout(2000);
                c.setReadTimeout(5000);
                int status = c.getResponseCode();
                InputStream body = status >= 400 ? c.getErrorStream() : c.getInputStream();
                answer[0] = String.valueOf(status);
                answer[1] = body == null ? "" : new String(body.readAllBytes(), StandardCharsets.UTF_8);
                return answer[1].contains("<Error>");
            } catch (IOException notYet) {
                return false;
            }
        });
        assertEquals(answer[1], "403", answer[0]);
        assertTrue(answer[1], answer[1].contains("<Code>AccessDenied</Code>"));
        String gateway = executeCommand("rdma:gateway --no-format");
        assertTrue(gateway, gateway.contains("ACTIVE"));
    }

    /**
     * Each layer feature of the umbrella in dependency order, with the service (class name and filter) it
     * registers once installed alone; null where the layer publishes none unconfigured (the api, wire codecs,
     * verbs without a device, the client, cuObject until its PID is configured).
     */
    private static final String[][] LAYERS = {
        {"objrdma-api", null, null},
        {"objrdma-wire", null, null},
        {"objrdma-telemetry", "org.objrdma.api.telemetry.TelemetryView", null},
        {"objrdma-transport-common", null, null},
        {"objrdma-transport-tcp", "org.objrdma.api.transport.Transport", "(objrdma.transport.name=tcp)"},
        {"objrdma-staging", "org.objrdma.api.staging.StagingPool", null},
        {"objrdma-session", "org.objrdma.api.session.SessionManager", null},
        {"objrdma-verbs", null, null},
        {"objrdma-client", null, null},
        {"objrdma-cuobj", null, null},
        {"objrdma-store-fs", "org.objrdma.api.store.ObjectStore", "(objrdma.store=fs)"},
        {"objrdma-s3", "javax.servlet.Servlet", "(component.name=org.objrdma.s3)"},
        {"objrdma-shell", "javax.management.DynamicMBean", "(jmx.objectname=org.objrdma:type=gateway,name=s3)"},
    };

    private void installEveryLayerAlone() throws Exception {
        for (String[] layer : LAYERS) {
            String feature = layer[0];
            String out = executeCommand("feature:install " + feature);
            assertTrue(feature + ": " + out, !out.toLowerCase().contains("error"));
            String features = executeCommand("feature:list -i --no-format");
            assertTrue(feature + " not installed:\n" + features, features.lines().anyMatch(l -> l.startsWith(feature + "\t")
                    || l.startsWith(feature + " ")));
            assertTrue(feature + ": its bundle is not installed",
                    objrdmaBundles().stream().anyMatch(b -> b.getSymbolicName().equals(feature)));
            List<String> inactive = new java.util.ArrayList<>();
            try {
                await(feature + ": every bundle ACTIVE", SERVICE_TIMEOUT, () -> {
                inactive.clear();
                for (Bundle b : bundleContext.getBundles()) {
                    if (b.getState() != Bundle.ACTIVE && b.getHeaders().get("Fragment-Host") == null) {
                        inactive.add(b.getSymbolicName() + " state=" + b.getState());
                    }
                }
                return inactive.isEmpty();
                });
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; not active: " + inactive, e);
            }
            if (layer[1] != null) {
                await(feature + ": service " + layer[1] + " " + layer[2], SERVICE_TIMEOUT, () -> {
                    try {
                        return bundleContext.getServiceReferences(layer[1], layer[2]) != null;
                    } catch (org.osgi.framework.InvalidSyntaxException e) {
                        throw new IllegalArgumentException(e);
                    }
                });
            }
        }
    }
}
