package org.objrdma.benchmarks.table;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The objrdma distribution as a user runs it, started by {@code ./run.sh server} itself: run.sh, scripts/jdk.sh,
 * pom.xml and the built archive are copied into {@code <out>/launch} (so run.sh neither builds nor touches the
 * repository's own {@code target/run}), run.sh is run once with a JVM that refuses to start ({@code -Xmx1k}) to
 * unpack the home and write what it writes (credential, s3.env, allow.addresses for loopback clients), every
 * listening port of that home is moved to a free one (HTTP, ssh, the two RMI ports; the TCP transport's is 0 in the
 * shipped configuration, an ephemeral port), and run.sh is run again to start Karaf: the fs store, the TCP
 * transport and the S3 gateway behind Pax Web, HTTPS off. {@code fsync} of the fs store is set as asked (the
 * table's gaul/s3proxy reference never forces its files). Alternatively {@link #attach} names a running one.
 */
final class DistributionServer implements AutoCloseable {
    private static final Pattern ENV_LINE = Pattern.compile("^export ([A-Z_]+)=(.*)$");

    private final Path home;
    private final URI endpoint;
    private final String accessKey;
    private final String secretKey;
    private final Process runSh;
    private final ProcessCpu cpu;

    private DistributionServer(Path home, URI endpoint, String accessKey, String secretKey, Process runSh,
            ProcessCpu cpu) {
        this.home = home;
        this.endpoint = endpoint;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.runSh = runSh;
        this.cpu = cpu;
    }

    /** The Karaf home run.sh unpacked (its {@code bin/objrdma} is the client the table runs). */
    Path home() {
        return home;
    }

    URI endpoint() {
        return endpoint;
    }

    String accessKey() {
        return accessKey;
    }

    String secretKey() {
        return secretKey;
    }

    /** The server JVM's CPU counters, or null for an attached server without {@code OBJRDMA_SERVER_PID}. */
    ProcessCpu cpu() {
        return cpu;
    }

    /** Whether this instance started Karaf (false: attached to a running one). */
    boolean started() {
        return runSh != null;
    }

    /** Unpacks the distribution through run.sh without starting it: for the client of an attached server. */
    static Path prepare(Path repository, Path out) throws IOException, InterruptedException {
        Path launch = out.resolve("launch");
        Path home = copyLaunchFiles(repository, launch);
        Map<String, String> env = new HashMap<>(Map.of("JAVA_OPTS", "-Xmx1k", "OBJRDMA_HTTPS", "off"));
        List<String> printed = runSh(launch, env);
        if (printed.stream().noneMatch(l -> l.startsWith("objrdma: starting Karaf in"))) {
            throw new IOException("run.sh did not prepare the distribution: "
                    + String.join(" / ", printed.subList(Math.max(0, printed.size() - 5), printed.size())));
        }
        return home;
    }

    /** Starts the built distribution of {@code repository} under {@code <out>/launch}, fs store fsync as given. */
    static DistributionServer start(Path repository, Path out, boolean fsync) throws Exception {
        Path home = prepare(repository, out);
        Path launch = out.resolve("launch");
        int http = freePort();
        append(home, "org.ops4j.pax.web.cfg", "org.osgi.service.http.port = " + http
                + "\norg.osgi.service.http.port.secure = " + freePort());
        append(home, "org.apache.karaf.shell.cfg", "sshPort = " + freePort());
        append(home, "org.apache.karaf.management.cfg", "rmiRegistryPort = " + freePort() + "\nrmiServerPort = "
                + freePort());
        append(home, "org.objrdma.store.fs.cfg", "fsync = " + fsync);
        Map<String, String> env = readEnv(launch.resolve("target/run/s3.env"));
        String accessKey = env.get("AWS_ACCESS_KEY_ID");
        String secretKey = env.get("AWS_SECRET_ACCESS_KEY");
        if (accessKey == null || secretKey == null) {
            throw new IOException("run.sh wrote no credential into " + launch.resolve("target/run/s3.env"));
        }
        ProcessBuilder pb = new ProcessBuilder("./run.sh", "server").directory(launch.toFile()).redirectErrorStream(true);
        pb.environment().put("OBJRDMA_HTTPS", "off");
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().remove("JAVA_OPTS");
        Process runSh = pb.start();
        runSh.getOutputStream().close();
        ChildProcess.pipeRedacted(runSh, out.resolve("karaf-console.log"));
        URI endpoint = URI.create("http://127.0.0.1:" + http);
        try {
            awaitGateway(endpoint, accessKey, secretKey, runSh, Duration.ofSeconds(180), out);
            return new DistributionServer(home, endpoint, accessKey, secretKey, runSh, new ProcessCpu(karafJvm(runSh)));
        } catch (Exception | Error e) {
            stop(runSh);
            throw e;
        }
    }

    /** A running distribution ({@code OBJRDMA_S3_ENDPOINT} ...); its CPU is read only when its pid is given. */
    static DistributionServer attach(Path clientHome, URI endpoint, String accessKey, String secretKey, Long pid) {
        return new DistributionServer(clientHome, endpoint, accessKey, secretKey, null,
                pid == null ? null : new ProcessCpu(pid));
    }

    /** An S3 client of the gateway with its credential (the table's bucket set-up, not a measured client). */
    S3Client adminClient() {
        return client(endpoint, accessKey, secretKey);
    }

    /** An AWS SDK S3 client of {@code endpoint}, path style, for the table's own set-up requests. */
    static S3Client client(URI endpoint, String accessKey, String secretKey) {
        return S3Client.builder().endpointOverride(endpoint).region(Region.US_EAST_1).forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .build();
    }

    @Override
    public void close() throws InterruptedException {
        if (runSh != null) {
            stop(runSh);
        }
    }

    private static Path copyLaunchFiles(Path repository, Path launch) throws IOException {
        String version = readVersion(repository.resolve("pom.xml"));
        Path archive = repository.resolve("karaf-distribution/target/objrdma-karaf-distribution-" + version + ".tar.gz");
        if (!Files.isRegularFile(archive)) {
            throw new IOException(archive + " is missing: build the distribution first (./mvnw install -DskipTests)");
        }
        deleteTree(launch);
        Files.createDirectories(launch.resolve("scripts"));
        Files.createDirectories(launch.resolve("karaf-distribution/target"));
        Files.copy(repository.resolve("run.sh"), launch.resolve("run.sh"), StandardCopyOption.COPY_ATTRIBUTES);
        Files.copy(repository.resolve("scripts/jdk.sh"), launch.resolve("scripts/jdk.sh"),
                StandardCopyOption.COPY_ATTRIBUTES);
        Files.copy(repository.resolve("pom.xml"), launch.resolve("pom.xml"));
        Path copy = Files.copy(archive, launch.resolve("karaf-distribution/target").resolve(archive.getFileName()));
        // run.sh builds when a source is newer than the archive, and unpacks again when the archive is newer than
        // the home: the POM older than the archive, the archive older than the home run.sh is about to make
        Instant now = Instant.now();
        Files.setLastModifiedTime(launch.resolve("pom.xml"), FileTime.from(now.minusSeconds(7200)));
        Files.setLastModifiedTime(copy, FileTime.from(now.minusSeconds(3600)));
        return launch.resolve("target/run/objrdma-karaf-distribution-" + version);
    }

    private static String readVersion(Path pom) throws IOException {
        for (String line : Files.readAllLines(pom)) {
            Matcher m = Pattern.compile("^  <version>(.*)</version>").matcher(line);
            if (m.find()) {
                return m.group(1);
            }
        }
        throw new IOException("no project version in " + pom);
    }

    private static List<String> runSh(Path launch, Map<String, String> env) throws IOException, InterruptedException {
        List<String> command = List.of("./run.sh", "server");
        ProcessBuilder pb = new ProcessBuilder(command).directory(launch.toFile());
        pb.environment().putAll(env);
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        return ChildProcess.runAllowingFailure(pb);
    }

    private static Map<String, String> readEnv(Path file) throws IOException {
        Map<String, String> env = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            Matcher m = ENV_LINE.matcher(line);
            if (m.matches()) {
                env.put(m.group(1), m.group(2));
            }
        }
        return env;
    }

    private static void append(Path home, String file, String text) throws IOException {
        // later keys win in Karaf's cfg files (and in run.sh's own reading of them)
        Files.writeString(home.resolve("etc").resolve(file), "\n# set by the benchmark table (DistributionServer)\n"
                + text + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * The JVM running Karaf's main class among the started process's descendants (run.sh execs bin/karaf, which runs
     * other short-lived java processes too, e.g. to read the JDK's version, before the JVM that stays).
     */
    private static long karafJvm(Process runSh) throws IOException {
        List<ProcessHandle> jvms = runSh.descendants().filter(ProcessHandle::isAlive)
                .filter(p -> p.info().command().map(c -> c.endsWith("/java")).orElse(false)).toList();
        for (ProcessHandle p : jvms) {
            if (p.info().arguments().map(a -> List.of(a).contains("org.apache.karaf.main.Main")).orElse(false)) {
                return p.pid();
            }
        }
        if (jvms.size() == 1) {
            return jvms.get(0).pid(); // the arguments are not readable here: the only JVM left is Karaf's
        }
        throw new IOException("cannot tell Karaf's JVM among " + jvms.stream().map(ProcessHandle::pid).toList());
    }

    /** Until the gateway answers a signed request with its store behind it: creating a probe bucket succeeds. */
    private static void awaitGateway(URI endpoint, String accessKey, String secretKey, Process runSh, Duration timeout,
            Path out) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Exception last = null;
        try (S3Client s3 = client(endpoint, accessKey, secretKey)) {
            while (System.nanoTime() < deadline) {
                if (!runSh.isAlive()) {
                    throw new IOException("Karaf exited with " + runSh.exitValue() + ", see "
                            + out.resolve("karaf-console.log"));
                }
                try {
                    s3.createBucket(b -> b.bucket("bench-probe"));
                    return;
                } catch (RuntimeException notYet) {
                    last = notYet;
                    Thread.sleep(500);
                }
            }
        }
        throw new IOException("the gateway at " + endpoint + " did not answer within " + timeout.toSeconds()
                + " s (last: " + last + "), see " + out.resolve("karaf-console.log"));
    }

    private static void stop(Process runSh) throws InterruptedException {
        List<ProcessHandle> tree = new ArrayList<>(runSh.descendants().toList());
        tree.add(runSh.toHandle());
        tree.forEach(ProcessHandle::destroy); // SIGTERM: Karaf shuts down cleanly
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (ProcessHandle p : tree) {
            while (p.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
        }
        tree.forEach(ProcessHandle::destroyForcibly);
    }

    static void deleteTree(Path p) throws IOException {
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
