package org.objrdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.client.sdk.GatewayOnSocket;
import org.objrdma.s3.rdma.RdmaSettings;

/**
 * {@code bin/objrdma} of the packaged assembly ({@code target/objrdma-cli-*-dist}: the launcher, the JDK selection
 * copied from scripts/jdk.sh, the jars under lib/objrdma-cli) run as a child process against the gateway in this
 * JVM: a put, a get and a bench over cuObject and RC, checksums compared, and a usage error's exit code.
 */
class LauncherIT {
    @TempDir
    Path dir;
    private GatewayOnSocket gw;
    private Path launcher;

    @BeforeEach
    void start() throws Exception {
        try (var s = Files.list(Path.of("target"))) {
            Path dist = s.filter(p -> p.getFileName().toString().matches("objrdma-cli-.*-dist") && Files.isDirectory(p))
                    .findFirst().orElseThrow(() -> new AssertionError("no target/objrdma-cli-*-dist: run mvn verify"));
            launcher = dist.resolve("bin/objrdma");
        }
        Files.createDirectories(dir.resolve("store"));
        gw = new GatewayOnSocket(dir.resolve("store"), new RdmaSettings(1, 1 << 20));
        try (var s3 = gw.client(GatewayOnSocket.AK, GatewayOnSocket.SECRET)) {
            s3.createBucket(b -> b.bucket("bkt"));
        }
    }

    @AfterEach
    void stop() {
        gw.close();
    }

    record Run(int code, String out, String err) {
    }

    private Run objrdma(String... args) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder();
        pb.command().add("sh"); // the assembly's file mode is not what is under test
        pb.command().add(launcher.toString());
        pb.command().addAll(List.of(args));
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("AWS_"));
        env.put("JAVA_HOME", Path.of(System.getProperty("java.home")).toString());
        env.put("HOME", dir.toString());
        env.put("AWS_ACCESS_KEY_ID", GatewayOnSocket.AK);
        env.put("AWS_SECRET_ACCESS_KEY", GatewayOnSocket.SECRET);
        env.put("AWS_ENDPOINT_URL", gw.endpoint().toString());
        pb.redirectOutput(dir.resolve("out.txt").toFile()).redirectError(dir.resolve("err.txt").toFile());
        Process p = pb.start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("bin/objrdma " + String.join(" ", args) + " did not end in 120 s");
        }
        return new Run(p.exitValue(), Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8),
                Files.readString(dir.resolve("err.txt"), StandardCharsets.UTF_8));
    }

    @Test
    void theLauncherPutsGetsAndBenchesOverBothProtocols() throws Exception {
        byte[] data = new byte[3 << 20];
        new Random(42).nextBytes(data);
        Path src = Files.write(dir.resolve("src.bin"), data);
        for (String protocol : List.of("cuobj", "rc")) {
            Run put = objrdma("put", src.toString(), "s3://bkt/" + protocol, "--protocol", protocol);
            assertEquals(0, put.code(), put.err());
            assertTrue(put.out().contains("over " + protocol), put.out());
            Path back = dir.resolve("back-" + protocol);
            Run get = objrdma("get", "s3://bkt/" + protocol, back.toString(), "--protocol", protocol);
            assertEquals(0, get.code(), get.err());
            assertTrue(get.out().contains(data.length + " bytes in"), get.out());
            assertEquals(CliEndToEndTest.sha256(data), CliEndToEndTest.sha256(Files.readAllBytes(back)));
        }
        // 4 KiB is below the default --rdma-min-bytes (plain HTTP there): 1 makes the bench ask for RDMA
        Run bench = objrdma("bench", "s3://bkt/b", "--size", "4KiB", "--count", "5", "--protocol", "rc",
                "--rdma-min-bytes", "1");
        assertEquals(0, bench.code(), bench.err());
        assertTrue(bench.out().contains("GET 4096 B x 5 over rc"), bench.out());

        Run usage = objrdma("get", "not-an-s3-uri", "x");
        assertEquals(ExitCodes.USAGE, usage.code());
        assertTrue(usage.err().startsWith("objrdma: 'not-an-s3-uri' is not an S3 URI"), usage.err());
    }
}
