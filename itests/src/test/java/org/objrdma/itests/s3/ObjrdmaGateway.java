package org.objrdma.itests.s3;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.objrdma.itests.KarafHome;
import org.objrdma.itests.ObjRdmaTestSupport;
import org.objrdma.itests.Processes;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The objrdma distribution with its S3 gateway, started as a user starts it ({@code bin/karaf server}) on
 * ports of its own: the gateway's HTTP port through {@code org.ops4j.pax.web}, the credential through the fs
 * store's {@code credentials = AK:SECRET}, ssh and JMX moved off their defaults so a running ./run.sh never
 * collides.
 */
final class ObjrdmaGateway implements AutoCloseable {

    static final String ACCESS_KEY = "objrdma-it-access";
    static final String SECRET_KEY = "objrdma-it-secret-0123456789";
    static final String REGION = "us-east-1";
    private static final Duration BOOT_TIMEOUT = Duration.ofSeconds(180);

    private final KarafHome karaf;
    private final int httpPort;

    private ObjrdmaGateway(KarafHome karaf, int httpPort) {
        this.karaf = karaf;
        this.httpPort = httpPort;
    }

    /** Unpacks the distribution under test into {@code target}; does not start it. */
    static ObjrdmaGateway unpack(Path target) throws Exception {
        KarafHome karaf = KarafHome.unpack(KarafHome.distributionArchive(), target);
        return new ObjrdmaGateway(karaf, ObjRdmaTestSupport.freePort());
    }

    /** Whether {@code archive} ships the gateway bundle (in {@code system/}, where its features resolve from). */
    static boolean shippedIn(Path archive) throws Exception {
        return Processes.run(archive.getParent(), Duration.ofSeconds(60), "tar", "tzf", archive.toString()).lines()
                .anyMatch(entry -> entry.contains("/system/org/objrdma/objrdma-s3/"));
    }

    Path home() {
        return karaf.home();
    }

    /** Writes the ports and the credential, starts Karaf and waits until the gateway answers a signed request. */
    void start() throws Exception {
        karaf.appendConfig("org.ops4j.pax.web.cfg", "org.osgi.service.http.port = " + httpPort);
        Path storeConfig = karaf.home().resolve("etc/org.objrdma.store.fs.cfg");
        String kept = Files.exists(storeConfig) ? Files.readString(storeConfig).lines()
                .filter(l -> !l.trim().startsWith("credentials")).reduce("", (a, b) -> a + b + "\n") : "";
        Files.writeString(storeConfig, kept + "credentials = " + ACCESS_KEY + ":" + SECRET_KEY + "\n");
        karaf.appendConfig("org.apache.karaf.shell.cfg", "sshPort = " + ObjRdmaTestSupport.freePort());
        karaf.appendConfig("org.apache.karaf.management.cfg", "rmiRegistryPort = " + ObjRdmaTestSupport.freePort()
                + "\nrmiServerPort = " + ObjRdmaTestSupport.freePort());
        launch();
    }


    /** The crash alone; {@link #restart()} brings it back. */
    void crash() throws InterruptedException {
        karaf.kill();
    }

    void restart() throws Exception {
        launch();
    }

    S3Target target() {
        return new S3Target(URI.create("http://127.0.0.1:" + httpPort), ACCESS_KEY, SECRET_KEY, REGION);
    }

    private void launch() throws Exception {
        karaf.start();
        awaitListBuckets(karaf, target(), BOOT_TIMEOUT, () -> failOnBootFeatureError(karaf));
    }

    /** Waits until {@code target} answers a signed ListBuckets; {@code check} runs between tries (it may throw). */
    static void awaitListBuckets(KarafHome karaf, S3Target target, Duration timeout, BootCheck check) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        try (S3Client s3 = S3Client.builder().endpointOverride(target.endpoint()).region(Region.of(target.region()))
                .forcePathStyle(true).credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(target.accessKey(), target.secretKey())))
                .build()) {
            while (true) {
                try {
                    s3.listBuckets();
                    return;
                } catch (RuntimeException notYet) {
                    karaf.assertRunning();
                    check.run();
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("the gateway did not answer ListBuckets on " + target.endpoint()
                                + " within " + timeout + "; see " + karaf.home().resolve("data/log/karaf.log"),
                                notYet);
                    }
                    TimeUnit.MILLISECONDS.sleep(500);
                }
            }
        }
    }

    /** What {@link #awaitListBuckets} checks between tries. */
    interface BootCheck {
        void run() throws Exception;
    }

    /** Karaf logs a boot feature that does not resolve and keeps running without it: no point waiting then. */
    static void failOnBootFeatureError(KarafHome karaf) throws java.io.IOException {
        Path log = karaf.home().resolve("data/log/karaf.log");
        if (Files.exists(log)) {
            String text = Files.readString(log);
            int at = text.indexOf("Error installing boot features");
            if (at >= 0) {
                throw new AssertionError("Karaf could not install its boot features, so the gateway never starts: "
                        + text.substring(at, Math.min(text.length(), at + 1500)) + " ... see " + log);
            }
        }
    }

    @Override
    public void close() {
        karaf.close();
    }
}
