package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.keyverifier.AcceptAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Issue 24 findings 3, 4 and 8 against the distribution as it ships, started as a user starts it
 * ({@code bin/karaf server}, so bin/setenv runs): only the ports are moved off their defaults (so a running
 * {@code ./run.sh} never collides), no host is configured, and the store's credential is left for the store to
 * generate.
 * <ul>
 * <li>every socket the Karaf JVM listens on (ssh, JMX's RMI registry and server, the S3 port, the TCP
 * transport, Karaf's shutdown port), read from {@code /proc/<pid>/fd} and {@code /proc/net/tcp[6]}, is bound to
 * loopback, and a connection to this host's non-loopback addresses is refused on each of them;</li>
 * <li>the shipped distribution has no login: {@code karaf}/{@code karaf} is refused on ssh and JMX; once the
 * user adds a password to {@code etc/users.properties} (as {@code ./run.sh} does), that one works;</li>
 * <li>the generated S3 secret is in Config Admin's persisted copy and in {@code etc/org.objrdma.store.fs.cfg},
 * both {@code rw-------}, the store root {@code rwx------}, and it is nowhere in {@code karaf.log}.</li>
 * </ul>
 */
public class AdminPlaneIT {

    private static final Duration BOOT_TIMEOUT = Duration.ofSeconds(150);
    private static KarafHome karaf;
    private static Path home;
    private static int sshPort;
    private static int registryPort;
    private static int serverPort;
    private static int httpPort;
    private static volatile String adminPassword;

    @BeforeClass
    public static void startDistribution() throws Exception {
        karaf = KarafHome.unpack(KarafHome.distributionArchive(), Path.of("target", "admin-plane").toAbsolutePath());
        home = karaf.home();
        sshPort = ObjRdmaTestSupport.freePort();
        registryPort = ObjRdmaTestSupport.freePort();
        serverPort = ObjRdmaTestSupport.freePort();
        httpPort = ObjRdmaTestSupport.freePort();
        karaf.appendConfig("org.apache.karaf.shell.cfg", "sshPort = " + sshPort);
        karaf.appendConfig("org.apache.karaf.management.cfg",
                "rmiRegistryPort = " + registryPort + "\nrmiServerPort = " + serverPort);
        karaf.appendConfig("org.ops4j.pax.web.cfg", "org.osgi.service.http.port = " + httpPort);
        // a viewer (no admin, no ssh role): its JMX login proves the JAAS realm is up, so a refusal of karaf/karaf
        // below is the shipped users.properties speaking, not a realm still starting
        karaf.appendConfig("users.properties", "viewonly = viewonly,viewer");
        karaf.start();
        // up: JMX logs a user in, and the S3 port and ssh accept connections
        connectJmx("viewonly", "viewonly").close();
        awaitListening(httpPort);
        awaitListening(sshPort);
    }

    @AfterClass
    public static void stopDistribution() throws Exception {
        if (karaf != null) {
            karaf.stop();
        }
    }

    @Test
    public void everyListeningSocketOfTheKarafJvmIsOnLoopback() throws Exception {
        Set<String> inodes = socketInodes(karaf.jvm().pid());
        List<Listener> listeners = new ArrayList<>();
        listeners.addAll(listeners(Path.of("/proc/net/tcp"), inodes));
        listeners.addAll(listeners(Path.of("/proc/net/tcp6"), inodes));
        Set<Integer> ports = new HashSet<>();
        for (Listener l : listeners) {
            ports.add(l.port());
            assertTrue("the Karaf JVM listens beyond loopback: " + l + " (all: " + listeners + ")",
                    l.address().isLoopbackAddress());
        }
        for (int expected : new int[] {sshPort, registryPort, serverPort, httpPort}) {
            assertTrue("port " + expected + " is not among the JVM's listeners " + listeners, ports.contains(expected));
        }
        List<InetAddress> outside = nonLoopbackAddresses();
        for (InetAddress address : outside) {
            for (int port : ports) {
                assertRefused(address, port);
            }
        }
        System.out.println("AdminPlaneIT: listeners " + listeners + "; refused on " + outside);
    }

    @Test
    public void theShippedDistributionHasNoLoginAndThePasswordTheUserSetsWorks() throws Exception {
        assertFalse("karaf/karaf logged in over ssh", sshLogin("karaf", "karaf"));
        try {
            connectJmx("karaf", "karaf").close();
            fail("karaf/karaf logged in over JMX");
        } catch (SecurityException expected) {
            // refused by the JAAS realm
        }
        // as run.sh (or the user, README) does: Karaf reads users.properties at each login
        adminPassword = karaf.addAdminUser();
        assertTrue("the password the user set does not log in over ssh", sshLogin("karaf", adminPassword));
        assertFalse("karaf/karaf logged in over ssh", sshLogin("karaf", "karaf"));
        try (JMXConnector admin = connectJmx("karaf", adminPassword)) {
            assertTrue(admin.getMBeanServerConnection()
                    .isRegistered(new ObjectName("org.apache.karaf:type=bundle,name=root")));
        }
    }

    @Test
    public void theGeneratedSecretIsOwnerOnlyAtRestAndNeverLogged() throws Exception {
        Path configAdminCopy = awaitConfigAdminCopy();
        String persisted = Files.readString(configAdminCopy);
        Matcher m = Pattern.compile("credentials=\"([^\"]+)\"").matcher(persisted);
        assertTrue(configAdminCopy + " holds no credential: " + persisted, m.find());
        String credential = m.group(1).replace("\\", "");
        String accessKey = credential.substring(0, credential.indexOf(':'));
        String secret = credential.substring(credential.indexOf(':') + 1);
        assertTrue(secret.length() >= 40);

        assertEquals(configAdminCopy.toString(), "rw-------", mode(configAdminCopy));
        Path etcCopy = home.resolve("etc/org.objrdma.store.fs.cfg");
        awaitContains(etcCopy, secret); // Karaf's file install writes the generated credential back
        assertEquals("rw-------", mode(etcCopy));
        assertEquals("rw-------", mode(home.resolve("etc/users.properties")));
        Path root = home.resolve("data/objrdma/store");
        assertEquals("rwx------", mode(root));
        assertEquals("rwx------", mode(home.resolve("data")));

        Path log = home.resolve("data/log/karaf.log");
        String logged = Files.readString(log);
        assertTrue("the log names the generated access key id", logged.contains("generated access key id " + accessKey));
        assertFalse("the generated secret is in " + log, logged.contains(secret));
        if (adminPassword != null) {
            assertFalse("the admin password is in " + log, logged.contains(adminPassword));
        }
    }

    // ---- helpers

    private record Listener(InetAddress address, int port) {
        @Override
        public String toString() {
            return address.getHostAddress() + ":" + port;
        }
    }

    /** The inodes of the sockets {@code pid} holds open ({@code /proc/<pid>/fd/N -> socket:[inode]}). */
    private static Set<String> socketInodes(long pid) throws IOException {
        Set<String> out = new HashSet<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc", String.valueOf(pid), "fd"))) {
            for (Path fd : fds.toList()) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        out.add(target.substring(8, target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // the fd went away while listing
                }
            }
        }
        return out;
    }

    /** The LISTEN rows (state 0A) of a /proc/net/tcp table whose inode is one of {@code inodes}. */
    private static List<Listener> listeners(Path table, Set<String> inodes) throws IOException {
        List<Listener> out = new ArrayList<>();
        if (!Files.exists(table)) {
            return out;
        }
        List<String> rows = Files.readAllLines(table);
        for (String line : rows.subList(1, rows.size())) {
            String[] f = line.trim().split("\\s+");
            if (!f[3].equals("0A") || !inodes.contains(f[9])) {
                continue;
            }
            String[] local = f[1].split(":");
            out.add(new Listener(procAddress(local[0]), Integer.parseInt(local[1], 16)));
        }
        return out;
    }

    /** /proc/net/tcp prints each 32-bit word of the address in host (little-endian) order. */
    private static InetAddress procAddress(String hex) throws IOException {
        byte[] bytes = new byte[hex.length() / 2];
        for (int word = 0; word < bytes.length / 4; word++) {
            for (int b = 0; b < 4; b++) {
                int at = (word * 4 + (3 - b)) * 2;
                bytes[word * 4 + b] = (byte) Integer.parseInt(hex.substring(at, at + 2), 16);
            }
        }
        // an IPv4-mapped ::ffff:127.0.0.1 comes back as the Inet4Address 127.0.0.1; the wildcard :: is not loopback
        return InetAddress.getByAddress(bytes);
    }

    private static List<InetAddress> nonLoopbackAddresses() throws IOException {
        List<InetAddress> out = new ArrayList<>();
        for (NetworkInterface nif : NetworkInterface.networkInterfaces().toList()) {
            if (!nif.isUp()) {
                continue;
            }
            nif.inetAddresses().filter(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress()).forEach(out::add);
        }
        return out;
    }

    private static void assertRefused(InetAddress address, int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, port), 2000);
            fail("port " + port + " accepted a connection on " + address.getHostAddress());
        } catch (ConnectException | SocketTimeoutException expected) {
            // nothing listens there
        }
    }

    private static void awaitListening(int port) throws Exception {
        long deadline = System.nanoTime() + BOOT_TIMEOUT.toNanos();
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
                return;
            } catch (IOException notYet) {
                karaf.assertRunning();
                assertTrue("nothing listens on 127.0.0.1:" + port, System.nanoTime() < deadline);
                TimeUnit.MILLISECONDS.sleep(250);
            }
        }
    }

    private static boolean sshLogin(String user, String password) throws Exception {
        try (SshClient client = SshClient.setUpDefaultClient()) {
            client.setServerKeyVerifier(AcceptAllServerKeyVerifier.INSTANCE);
            client.start();
            try (ClientSession session = client.connect(user, "127.0.0.1", sshPort).verify(Duration.ofSeconds(30))
                    .getSession()) {
                session.addPasswordIdentity(password);
                try {
                    session.auth().verify(Duration.ofSeconds(30));
                    return true;
                } catch (org.apache.sshd.common.SshException refused) {
                    return false;
                }
            }
        }
    }

    private static JMXConnector connectJmx(String user, String password) throws Exception {
        return karaf.connectJmx(serverPort, registryPort, user, password, BOOT_TIMEOUT);
    }

    /** Felix Config Admin's persisted copy of PID org.objrdma.store.fs, once the store wrote its credential. */
    private static Path awaitConfigAdminCopy() throws Exception {
        long deadline = System.nanoTime() + BOOT_TIMEOUT.toNanos();
        while (true) {
            try (Stream<Path> walk = Files.walk(home.resolve("data/cache"))) {
                List<Path> copies = walk.filter(p -> p.endsWith(Path.of("org", "objrdma", "store", "fs.config"))).toList();
                for (Path copy : copies) {
                    // the shipped file's empty credentials="" first, the generated one once the store wrote it
                    if (Pattern.compile("credentials=\"[^\"]+\"").matcher(Files.readString(copy)).find()) {
                        return copy;
                    }
                }
            } catch (java.io.UncheckedIOException | java.nio.file.NoSuchFileException changing) {
                // the framework is writing the cache
            }
            assertTrue("no Config Admin copy of org.objrdma.store.fs with credentials under data/cache",
                    System.nanoTime() < deadline);
            TimeUnit.MILLISECONDS.sleep(250);
        }
    }

    private static void awaitContains(Path file, String text) throws Exception {
        long deadline = System.nanoTime() + BOOT_TIMEOUT.toNanos();
        while (!Files.readString(file).contains(text)) {
            assertTrue(file + " never got the generated credential", System.nanoTime() < deadline);
            TimeUnit.MILLISECONDS.sleep(250);
        }
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }
}
