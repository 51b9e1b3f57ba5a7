package org.objrdma.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.lang.ProcessBuilder.Redirect;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code OBJRDMA_VERBS_DEVICE=softrc0 ./run.sh server} (issue 26, Proof): in a copy of the launch files plus the
 * software device's sources, run.sh builds the device, points the verbs component at it, prints the fabric
 * directory and the {@code LD_LIBRARY_PATH} a client process must use (which a stock rdma-core tool then uses),
 * refuses a bad value before touching anything, keeps and restores a configuration of the user's, and the
 * distribution it starts publishes the verbs transport on softrc0 and joins the printed fabric.
 */
public class RunShVerbsIT {
    private static final Pattern CLIENTS = Pattern.compile(
            "objrdma: RDMA clients  LD_LIBRARY_PATH=(\\S+) SOFTVERBS_FABRIC=(\\S+) ");
    private static final Pattern FABRIC = Pattern.compile("objrdma: RDMA fabric   (\\S+) ");

    private static Path repo;
    private static Path home;
    private static Path fabric;

    @BeforeClass
    public static void copyTheLaunchFilesAndTheDeviceSources() throws Exception {
        repo = Path.of("target", "run-sh-verbs").toAbsolutePath();
        home = LaunchFiles.copyInto(repo);
        Path source = LaunchFiles.source();
        Path nativeSrc = Path.of("bundles/objrdma-verbs/src/test/native");
        Files.createDirectories(repo.resolve(nativeSrc));
        try (var files = Files.list(source.resolve(nativeSrc))) {
            for (Path f : files.toList()) {
                Path copy = Files.copy(f, repo.resolve(nativeSrc).resolve(f.getFileName()),
                        StandardCopyOption.COPY_ATTRIBUTES);
                Files.setLastModifiedTime(copy, LaunchFiles.SOURCES_TIME); // older than the distribution: no Java build

            }
        }
        // a fabric of this test's own (short: it holds Unix socket paths), not the user's default one
        fabric = Files.createTempDirectory(Path.of("/tmp"), "rsv");
    }

    @AfterClass
    public static void removeTheFabric() throws Exception {
        if (fabric != null) {
            KarafHome.deleteTree(fabric);
        }
    }

    /** run.sh with Karaf kept from starting ({@code -Xmx1k}): what it prints and writes before exec'ing Karaf. */
    private static Processes.Ran runSh(String device) throws Exception {
        Map<String, String> env = new HashMap<>(Map.of("JAVA_OPTS", "-Xmx1k", "JAVA_HOME", System.getProperty("java.home"),
                "OBJRDMA_HTTPS", "off", "SOFTVERBS_FABRIC", fabric.toString()));
        env.put("OBJRDMA_VERBS_DEVICE", device);
        return Processes.exec(repo, Duration.ofSeconds(300), "", env, "./run.sh", "server");
    }

    private static Path verbsCfg() {
        return home.resolve("etc/org.objrdma.verbs.cfg");
    }

    @Test
    public void theSwitchBuildsTheDeviceConfiguresVerbsPrintsTheClientEnvironmentAndStartsOnTheFabric() throws Exception {
        // a bad value: refused, nothing built, nothing unpacked
        Processes.Ran bad = runSh("mlx5_0");
        assertEquals(bad.output(), 2, bad.exitValue());
        assertTrue(bad.output(), bad.output().contains("OBJRDMA_VERBS_DEVICE must be softrc0 (the software RDMA device"
                + " run.sh builds) or off, was 'mlx5_0'"));
        assertFalse(Files.exists(repo.resolve("target/run")));
        assertFalse(Files.exists(repo.resolve("target/softverbs")));

        // switched on: the device is built, the verbs component pointed at it, the client environment printed
        Processes.Ran on = runSh("softrc0");
        String out = on.output();
        assertTrue(out, out.contains("Too small maximum heap"));
        assertTrue(out, out.contains("objrdma: building the software RDMA device softrc0 into target/softverbs"));
        Path lib = repo.resolve("target/softverbs/libibverbs.so.1");
        assertTrue(Files.isRegularFile(lib));
        Matcher m = CLIENTS.matcher(out);
        assertTrue("no client environment printed: " + out, m.find());
        assertEquals(lib.getParent().toString(), m.group(1));
        assertEquals(fabric.toString(), m.group(2));
        Matcher f = FABRIC.matcher(out);
        assertTrue(out, f.find());
        assertEquals(fabric.toString(), f.group(1));
        assertTrue(out, out.contains("objrdma: verbs device  softrc0, the software RDMA device " + lib));
        String cfg = Files.readString(verbsCfg());
        assertTrue(cfg, cfg.contains("\nlibrary.path = " + lib + "\ndevice.name = softrc0\n"));
        Path verbsEnv = repo.resolve("target/run/verbs.env");
        assertEquals("export LD_LIBRARY_PATH=" + lib.getParent() + "\nexport SOFTVERBS_FABRIC=" + fabric + "\n",
                Files.readString(verbsEnv).strip() + "\n");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(verbsEnv, LinkOption.NOFOLLOW_LINKS)));

        // a stock rdma-core tool in another process with exactly the printed environment finds softrc0 and its GIDs
        Path devinfo = Path.of("/usr/bin/ibv_devinfo");
        if (Files.isExecutable(devinfo)) {
            Processes.Ran tool = Processes.exec(repo, Duration.ofSeconds(60), "",
                    Map.of("LD_LIBRARY_PATH", m.group(1), "SOFTVERBS_FABRIC", m.group(2)), devinfo.toString(), "-v");
            assertEquals(tool.output(), 0, tool.exitValue());
            assertTrue(tool.output(), tool.output().contains("hca_id:\tsoftrc0"));
            assertTrue(tool.output(), tool.output().contains("::ffff:127.0.0.1"));
        } else {
            System.out.println("RunShVerbsIT: ibv_devinfo not installed (Debian ibverbs-utils): the client-side check is skipped");
        }

        // a second start does not build again; the user's own library.path is set aside and restored when off
        Files.writeString(verbsCfg(), "poller.idle = spin\nlibrary.path = /opt/nic/libibverbs.so.1\n");
        Processes.Ran again = runSh("softrc0");
        assertFalse(again.output(), again.output().contains("building the software RDMA device"));
        cfg = Files.readString(verbsCfg());
        assertTrue(cfg, cfg.startsWith("poller.idle = spin\n#kept while OBJRDMA_VERBS_DEVICE=softrc0# library.path = /opt/nic/"));
        assertTrue(cfg, cfg.endsWith("\nlibrary.path = " + lib + "\ndevice.name = softrc0\n"));
        Processes.Ran off = runSh("off");
        assertFalse(off.output(), off.output().contains("RDMA clients"));
        assertEquals("poller.idle = spin\nlibrary.path = /opt/nic/libibverbs.so.1\n", Files.readString(verbsCfg()));
        assertFalse(Files.exists(verbsEnv));
        Files.delete(verbsCfg());

        startForRealAndFindTheTransportOnTheFabric(lib);
    }

    /** Karaf really started by run.sh with the switch, on ports of its own: verbs:softrc0 published, on the fabric. */
    private static void startForRealAndFindTheTransportOnTheFabric(Path lib) throws Exception {
        Files.writeString(home.resolve("etc/org.ops4j.pax.web.cfg"), "\norg.osgi.service.http.port = "
                + ObjRdmaTestSupport.freePort() + "\n", java.nio.file.StandardOpenOption.APPEND);
        Files.writeString(home.resolve("etc/org.apache.karaf.shell.cfg"), "\nsshPort = " + ObjRdmaTestSupport.freePort()
                + "\n", java.nio.file.StandardOpenOption.APPEND);
        Files.writeString(home.resolve("etc/org.apache.karaf.management.cfg"), "\nrmiRegistryPort = "
                + ObjRdmaTestSupport.freePort() + "\nrmiServerPort = " + ObjRdmaTestSupport.freePort() + "\n",
                java.nio.file.StandardOpenOption.APPEND);
        ProcessBuilder pb = new ProcessBuilder("./run.sh", "server").directory(repo.toFile()).redirectErrorStream(true)
                .redirectOutput(Redirect.appendTo(repo.resolve("run-sh.log").toFile()));
        pb.environment().putAll(Map.of("JAVA_HOME", System.getProperty("java.home"), "OBJRDMA_HTTPS", "off",
                "SOFTVERBS_FABRIC", fabric.toString(), "OBJRDMA_VERBS_DEVICE", "softrc0"));
        Process run = pb.start();
        Path log = home.resolve("data/log/karaf.log");
        String published = "verbs: [softrc0] published from " + lib;
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
            boolean seen = false;
            while (!seen && System.nanoTime() < deadline && run.isAlive()) {
                seen = Files.exists(log) && Files.readString(log, StandardCharsets.UTF_8).contains(published);
                TimeUnit.MILLISECONDS.sleep(500);
            }
            assertTrue("no '" + published + "' in " + log + "; run.sh printed:\n"
                    + Files.readString(repo.resolve("run-sh.log")), seen);
            // the Karaf JVM has a context open: its service socket is in the printed fabric directory
            List<String> sockets = new ArrayList<>();
            for (ProcessHandle p : run.descendants().toList()) {
                if (Files.exists(fabric.resolve("p" + p.pid() + ".sock"))) {
                    sockets.add("p" + p.pid() + ".sock");
                }
            }
            assertEquals("the Karaf JVM's socket in " + fabric + ": " + List.of(new File(fabric.toString()).list()),
                    1, sockets.size());
        } finally {
            List<ProcessHandle> tree = new ArrayList<>(run.descendants().toList());
            tree.add(run.toHandle());
            tree.forEach(ProcessHandle::destroy);
            for (ProcessHandle p : tree) {
                try {
                    p.onExit().get(60, TimeUnit.SECONDS);
                } catch (java.util.concurrent.TimeoutException stuck) {
                    p.destroyForcibly();
                }
            }
        }
    }
}
