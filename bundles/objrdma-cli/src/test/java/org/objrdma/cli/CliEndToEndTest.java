package org.objrdma.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.objrdma.client.sdk.GatewayOnSocket;
import org.objrdma.client.sdk.Waits;
import org.objrdma.s3.rdma.RdmaSettings;
import software.amazon.awssdk.core.sync.ResponseTransformer;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code objrdma get|put|bench} run in-process ({@link Main#run}) against the gateway on a loopback socket, the
 * credential and endpoint from the environment as a user sets them; every file compared by SHA-256 with what a
 * plain SDK client reads or wrote, and the path each transfer reports checked.
 */
class CliEndToEndTest {
    @TempDir
    Path dir;
    private GatewayOnSocket gw;
    private S3Client plain;
    private Map<String, String> env;

    @BeforeEach
    void start() throws Exception {
        Files.createDirectories(dir.resolve("store"));
        gw = new GatewayOnSocket(dir.resolve("store"), new RdmaSettings(64, 1 << 20));
        plain = gw.client(GatewayOnSocket.AK, GatewayOnSocket.SECRET);
        plain.createBucket(b -> b.bucket("bkt"));
        env = new HashMap<>(Map.of("HOME", dir.toString(), "AWS_ACCESS_KEY_ID", GatewayOnSocket.AK,
                "AWS_SECRET_ACCESS_KEY", GatewayOnSocket.SECRET, "AWS_ENDPOINT_URL", gw.endpoint().toString()));
    }

    @AfterEach
    void stop() throws Exception {
        Waits.until("staging back to zero", () -> gw.pool.stats().borrowed() == 0);
        plain.close();
        gw.close();
    }

    record Run(int code, String out, String err) {
    }

    Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Path file(String name, int size, long seed) throws Exception {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return Files.write(dir.resolve(name), b);
    }

    static String sha256(byte[] b) throws Exception {
        return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    private byte[] stored(String key) {
        return plain.getObject(g -> g.bucket("bkt").key(key), ResponseTransformer.toBytes()).asByteArray();
    }

    @ParameterizedTest
    @ValueSource(strings = {"cuobj", "rc"})
    void putAndGetFilesByteExact(String protocol) throws Exception {
        for (int size : List.of(1, 4096, 8 << 20)) {
            Path src = file("src-" + size, size, size);
            String uri = "s3://bkt/" + protocol + "/f-" + size;
            // --rdma-min-bytes 1: this test exercises RDMA at every size (the gateway's own threshold declines 1 B)
            Run put = run("put", src.toString(), uri, "--protocol", protocol, "--rdma-min-bytes", "1");
            assertEquals(0, put.code(), put.err());
            String path = protocol.equals("cuobj") && size < 64 ? "http" : protocol; // below rdma.min.bytes
            assertTrue(put.out().matches("(?s)upload: .* " + size + " bytes in .* bytes/s\\) over " + path + "\\s*"),
                    put.out());
            assertEquals(sha256(Files.readAllBytes(src)), sha256(stored(protocol + "/f-" + size)));

            Path back = dir.resolve("back-" + size);
            Run get = run("get", uri, back.toString(), "--protocol", protocol, "--rdma-min-bytes", "1");
            assertEquals(0, get.code(), get.err());
            assertTrue(get.out().contains(" over " + path), get.out());
            assertEquals(sha256(Files.readAllBytes(src)), sha256(Files.readAllBytes(back)), uri);
            assertEquals(path.equals("http"), get.err().contains("warning: the gateway declined RDMA"), get.err());
        }
    }

    /**
     * Issue 30: the gateway's staging is busy for this principal (all of its 1 MiB held by another transfer):
     * PREPARE answers 429 RdmaResourceLimit before any byte moved. {@code put} and {@code get} move the file over
     * HTTP, warn with the reason as for a decline, and exit 0. (RC only: the cuObject route's busy answer waits the
     * gateway's 5 s staging wait on each of the SDK's 3 attempts; RdmaS3Test covers it.)
     */
    @Test
    void aBusyGatewaysBytesGoOverHttpWithAWarning() throws Exception {
        plain.close();
        gw.close();
        long perPrincipal = 1 << 20;
        Files.createDirectories(dir.resolve("store-busy"));
        gw = new GatewayOnSocket(dir.resolve("store-busy"), new RdmaSettings(64, 1 << 20),
                GatewayOnSocket.smallStaging(perPrincipal));
        plain = gw.client(GatewayOnSocket.AK, GatewayOnSocket.SECRET);
        plain.createBucket(b -> b.bucket("bkt"));
        env.put("AWS_ENDPOINT_URL", gw.endpoint().toString());
        Path src = file("busy", 256 << 10, 30);
        Path back = dir.resolve("busy-back");
        try (var held = gw.holdStaging(perPrincipal)) {
            Run put = run("put", src.toString(), "s3://bkt/busy", "--protocol", "rc", "--rdma-min-bytes", "1");
            assertEquals(0, put.code(), put.err());
            assertTrue(put.out().contains(" over http"), put.out());
            assertTrue(put.err().contains("warning: busy: 429 RdmaResourceLimit"), put.err());
            assertEquals(sha256(Files.readAllBytes(src)), sha256(stored("busy")));

            Run get = run("get", "s3://bkt/busy", back.toString(), "--protocol", "rc", "--rdma-min-bytes", "1");
            assertEquals(0, get.code(), get.err());
            assertTrue(get.out().contains(" over http"), get.out());
            assertTrue(get.err().contains("warning: busy: 429 RdmaResourceLimit"), get.err());
            assertEquals(sha256(Files.readAllBytes(src)), sha256(Files.readAllBytes(back)));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"cuobj", "rc"})
    void largerThanOneChunkGoesAsPartsAndRangedGets(String protocol) throws Exception {
        Path src = file("big", (12 << 20) + 123, 99);
        Run put = run("put", src.toString(), "s3://bkt/big", "--protocol", protocol, "--chunk-size", "5MiB");
        assertEquals(0, put.code(), put.err());
        assertTrue(put.out().endsWith("over " + protocol + System.lineSeparator()), put.out());
        // three parts: the object's ETag is a multipart one
        String etag = plain.headObject(h -> h.bucket("bkt").key("big")).eTag();
        assertTrue(etag.endsWith("-3\""), etag);
        assertArrayEquals(Files.readAllBytes(src), stored("big"));

        Path back = dir.resolve("big-back");
        Run get = run("get", "s3://bkt/big", back.toString(), "--protocol", protocol, "--chunk-size", "5MiB");
        assertEquals(0, get.code(), get.err());
        assertEquals(sha256(Files.readAllBytes(src)), sha256(Files.readAllBytes(back)));
    }

    @Test
    void getIntoADirectoryAndOverHttp() throws Exception {
        Path src = file("plain", 100_000, 5);
        assertEquals(0, run("put", src.toString(), "s3://bkt/d/x.bin", "--protocol", "http").code());
        Path out = Files.createDirectories(dir.resolve("out"));
        Run get = run("get", "s3://bkt/d/x.bin", out.toString());
        assertEquals(0, get.code(), get.err());
        assertArrayEquals(Files.readAllBytes(src), Files.readAllBytes(out.resolve("x.bin")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"cuobj", "rc"})
    void benchPrintsOpsAndBytesPerSecond(String protocol) throws Exception {
        Run bench = run("bench", "s3://bkt/bench", "--size", "64KiB", "--count", "3", "--protocol", protocol,
                "--rdma-min-bytes", "64KiB");
        assertEquals(0, bench.code(), bench.err());
        for (String op : List.of("PUT", "GET")) {
            Matcher m = Pattern.compile(op + " 65536 B x 3 over " + protocol + ": ([0-9.]+) ops/s, .* \\(([0-9]+) bytes/s\\)")
                    .matcher(bench.out());
            assertTrue(m.find(), bench.out());
            assertTrue(Double.parseDouble(m.group(1)) > 0);
            assertTrue(Long.parseLong(m.group(2)) > 0);
        }
        assertEquals(65536, stored("bench").length);
    }

    @ParameterizedTest
    @ValueSource(strings = {"cuobj", "rc", "http"})
    void benchRunsConcurrentClientsEachOnItsOwnObjectAndMarksTheTimedPhases(String protocol) throws Exception {
        // --rdma-min-bytes 1: 64 KiB is below the client's default threshold (2 MiB), which would send it plain HTTP
        Run bench = run("bench", "s3://bkt/many", "--size", "64KiB", "--count", "4", "--clients", "3", "--marks",
                "--protocol", protocol, "--rdma-min-bytes", "1");
        assertEquals(0, bench.code(), bench.err());
        List<String> lines = bench.out().lines().toList();
        assertEquals(4, lines.size(), bench.out());
        assertEquals("begin PUT", lines.get(0));
        assertTrue(lines.get(1).matches("PUT 65536 B x 4 by 3 clients over " + protocol + ": [0-9.]+ ops/s, .*"),
                bench.out());
        assertEquals("begin GET", lines.get(2));
        assertTrue(lines.get(3).matches("GET 65536 B x 4 by 3 clients over " + protocol + ": [0-9.]+ ops/s, .*"),
                bench.out());
        java.util.Set<String> contents = new java.util.HashSet<>();
        for (int c = 1; c <= 3; c++) {
            byte[] stored = stored("many.c" + c);
            assertEquals(65536, stored.length);
            contents.add(sha256(stored));
        }
        assertEquals(3, contents.size(), "each client wrote an object of its own");
        assertEquals(List.of(), plain.listObjectsV2(l -> l.bucket("bkt").prefix("many")).contents().stream()
                .map(o -> o.key()).filter(k -> !k.matches("many\\.c[123]")).toList());
    }

    @ParameterizedTest
    @ValueSource(strings = {"cuobj", "rc"})
    void wrongSecretAndMissingObjectAreClearFailures(String protocol) throws Exception {
        Path src = file("w", 4096, 1);
        env.put("AWS_SECRET_ACCESS_KEY", "wrong-secret-wrong-secret-wrong-secret00");
        Run put = run("put", src.toString(), "s3://bkt/w", "--protocol", protocol);
        assertEquals(ExitCodes.FAILED, put.code());
        assertTrue(put.err().startsWith("objrdma: ") && put.err().contains("403"), put.err());
        assertTrue(put.err().contains("SignatureDoesNotMatch"), put.err());
        assertFalse(put.err().contains("\tat "), "no stack trace");
        Path nowhere = dir.resolve("nowhere");
        Run refusedGet = run("get", "s3://bkt/w", nowhere.toString(), "--protocol", protocol);
        assertEquals(ExitCodes.FAILED, refusedGet.code());
        assertTrue(refusedGet.err().startsWith("objrdma: the gateway refused the request: 403 Forbidden"),
                refusedGet.err()); // the HEAD's refusal: no error body
        assertFalse(Files.exists(nowhere));
        env.put("AWS_SECRET_ACCESS_KEY", GatewayOnSocket.SECRET);

        Path target = dir.resolve("never");
        Run get = run("get", "s3://bkt/absent", target.toString(), "--protocol", protocol);
        assertEquals(ExitCodes.FAILED, get.code());
        assertTrue(get.err().contains("404"), get.err());
        assertFalse(Files.exists(target));
        assertTrue(plain.listObjectsV2(l -> l.bucket("bkt")).contents().isEmpty(), "nothing stored");
    }

    /**
     * The client's threshold: by default (the SDK's crossover, 2 MiB) a 64 KiB object moves over plain HTTP, with
     * no warning (it is the client's choice, not a decline); at --rdma-min-bytes 64KiB over the protocol asked.
     * Counted on the server (staging borrows), not timed. A threshold below 1 B is a usage error.
     */
    @ParameterizedTest
    @ValueSource(strings = {"cuobj", "rc"})
    void belowRdmaMinBytesMovesOverPlainHttp(String protocol) throws Exception {
        Path src = file("m", 64 << 10, 3);
        String uri = "s3://bkt/m-" + protocol;
        long before = gw.pool.stats().borrows();
        Run put = run("put", src.toString(), uri, "--protocol", protocol);
        assertEquals(0, put.code(), put.err());
        assertTrue(put.out().contains(" over http"), put.out());
        Run get = run("get", uri, dir.resolve("m-back").toString(), "--protocol", protocol);
        assertEquals(0, get.code(), get.err());
        assertTrue(get.out().contains(" over http"), get.out());
        assertEquals("", get.err() + put.err(), "no warning: nothing was declined");
        assertEquals(0, gw.pool.stats().borrows() - before, "no RDMA transfer on the server");
        assertArrayEquals(Files.readAllBytes(src), Files.readAllBytes(dir.resolve("m-back")));

        Run rdmaPut = run("put", src.toString(), uri, "--protocol", protocol, "--rdma-min-bytes", "64KiB");
        assertEquals(0, rdmaPut.code(), rdmaPut.err());
        assertTrue(rdmaPut.out().contains(" over " + protocol), rdmaPut.out());
        assertEquals(1, gw.pool.stats().borrows() - before, "one RDMA transfer on the server");

        Run bad = run("put", src.toString(), uri, "--protocol", protocol, "--rdma-min-bytes", "0");
        assertEquals(ExitCodes.USAGE, bad.code());
        assertTrue(bad.err().contains("--rdma-min-bytes must be at least 1B"), bad.err());
    }
}
