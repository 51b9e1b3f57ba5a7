package org.objrdma.itests.s3;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.objrdma.itests.KarafHome;
import org.objrdma.itests.ObjRdmaTestSupport;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * One gateway of a fleet in front of a shared S3 store: the objrdma distribution unpacked and started as a
 * user starts it ({@code bin/karaf server}), with {@code objrdma-store-s3} added to the boot features and the
 * gateway pinned to it ({@code store.target}), its own HTTP, ssh and JMX ports, and the fleet identity in
 * {@code org.objrdma.session} ({@code node.id}, {@code nodes}). Everything but {@code node.id} and the ports is
 * the same on every node, as docs/scale-out.md asks.
 */
final class FleetNode implements AutoCloseable {
    static final String ACCESS_KEY = "fleet-it-access";
    static final String SECRET_KEY = "fleet-it-secret-0123456789abcdef";
    private static final Duration BOOT_TIMEOUT = Duration.ofSeconds(180);

    final String id;
    private final KarafHome karaf;
    /** The password of the node's Karaf admin {@code karaf}, set by {@link #configure}. */
    private String adminPassword;
    private final int httpPort;
    private final int sshPort = ObjRdmaTestSupport.freePort();

    private FleetNode(String id, KarafHome karaf, int httpPort) {
        this.id = id;
        this.karaf = karaf;
        this.httpPort = httpPort;
    }

    static FleetNode unpack(String id, Path target) throws Exception {
        return new FleetNode(id, KarafHome.unpack(KarafHome.distributionArchive(), target), ObjRdmaTestSupport.freePort());
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + httpPort);
    }

    S3Target target() {
        return new S3Target(endpoint(), ACCESS_KEY, SECRET_KEY, S3ProxyServer.REGION);
    }

    Path home() {
        return karaf.home();
    }

    /** Writes this node's etc/: {@code nodes} is the fleet list every node shares, {@code store} the remote. */
    void configure(String nodes, S3Target store) throws Exception {
        configure(nodes, store.endpoint().toString(), store, "fleet-");
    }

    /**
     * As above with the adapter's {@code endpoint} list (several endpoints of one cluster, e.g. its RGWs) and
     * bucket prefix given; {@code store} supplies region and service credential.
     */
    void configure(String nodes, String endpoints, S3Target store, String bucketPrefix) throws Exception {
        karaf.appendConfig("org.ops4j.pax.web.cfg", "org.osgi.service.http.port = " + httpPort);
        karaf.appendConfig("org.apache.karaf.shell.cfg", "sshPort = " + sshPort);
        karaf.appendConfig("org.apache.karaf.management.cfg", "rmiRegistryPort = " + ObjRdmaTestSupport.freePort()
                + "\nrmiServerPort = " + ObjRdmaTestSupport.freePort());
        Path features = home().resolve("etc/org.apache.karaf.features.cfg");
        String boot = Files.readString(features);
        String withAdapter = boot.replaceFirst("(?m)^(\\s*)(objrdma/[^,\\s]+), \\\\$", "$1$2, \\\\\n$1objrdma-store-s3, \\\\");
        if (withAdapter.equals(boot)) {
            throw new AssertionError("no objrdma boot feature in " + features + ":\n" + boot);
        }
        Files.writeString(features, withAdapter);
        karaf.appendConfig("org.objrdma.store.s3.cfg", "endpoint = " + endpoints
                + "\nregion = " + store.region()
                + "\nservice.access.key = " + store.accessKey()
                + "\nservice.secret.key = " + store.secretKey()
                + "\nbucket.prefix = " + bucketPrefix
                + "\ncredentials = " + ACCESS_KEY + ":" + SECRET_KEY);
        karaf.appendConfig("org.objrdma.s3.cfg", "store.target = (objrdma.store=s3)");
        // the test's client endpoints are on loopback, which the session manager refuses unless allowed
        karaf.appendConfig("org.objrdma.session.cfg", "node.id = " + id + "\nnodes = " + nodes
                + "\nallow.addresses = 127.0.0.0/8");
        karaf.appendConfig("org.objrdma.cuobj.cfg", "allow.addresses = 127.0.0.0/8");
        // the distribution ships no login (issue 24): this node's admin, as a user would add one
        adminPassword = karaf.addAdminUser();
    }

    boolean isAlive() {
        return karaf.isAlive();
    }

    void start() throws Exception {
        karaf.start();
    }

    /** Waits until the gateway answers ListBuckets with the fleet credential, which only the S3 adapter knows. */
    void awaitServing() throws Exception {
        ObjrdmaGateway.awaitListBuckets(karaf, target(), BOOT_TIMEOUT, () -> ObjrdmaGateway.failOnBootFeatureError(karaf));
    }

    S3Client sdk() {
        return S3Client.builder().endpointOverride(endpoint()).region(Region.of(S3ProxyServer.REGION))
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(ACCESS_KEY, SECRET_KEY)))
                .build();
    }

    /**
     * Runs Karaf shell commands through {@code bin/client} (ssh, the admin user {@link #configure} added, batch mode) and returns what they
     * printed. Each run is bounded (30 s, then killed); ssh logins are refused until the JAAS realm is up, so a run
     * whose output lacks {@code mustContain} is repeated, for at most a minute.
     */
    String shell(String commands, String mustContain) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        Path out = Files.createTempFile(home(), "client", ".out");
        try {
            while (true) {
                Process p = new ProcessBuilder(home().resolve("bin/client").toString(), "-a", String.valueOf(sshPort),
                        "-u", "karaf", "-p", adminPassword, "-b").redirectErrorStream(true)
                        .redirectOutput(out.toFile()).start();
                try (var in = p.outputWriter()) {
                    in.write(commands + "\n");
                }
                if (!p.waitFor(30, java.util.concurrent.TimeUnit.SECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly().waitFor();
                }
                String text = Files.readString(out).replaceAll("\u001B\\[[;\\d]*m", "");
                if (text.contains(mustContain) || System.nanoTime() > deadline) {
                    return text;
                }
                Thread.sleep(500);
            }
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** SIGKILL to the node's process tree: no shutdown, its sessions and queue pairs simply vanish. */
    void kill() throws InterruptedException {
        karaf.kill();
    }

    @Override
    public void close() {
        karaf.close();
    }
}
