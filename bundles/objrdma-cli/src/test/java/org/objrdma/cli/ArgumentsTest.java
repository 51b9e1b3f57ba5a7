package org.objrdma.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.client.sdk.RdmaProtocol;

/** The command line's parsing and its refusals: exit code and message, no stack trace, nothing sent. */
class ArgumentsTest {
    @TempDir
    Path dir;

    record Run(int code, String out, String err) {
    }

    Run run(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private Map<String, String> env() {
        return Map.of("HOME", dir.toString(), "AWS_ACCESS_KEY_ID", "K", "AWS_SECRET_ACCESS_KEY", "S");
    }

    @Test
    void s3UrisAndSizes() throws Exception {
        assertEquals(new S3Uri("b", "a/b/c.bin"), S3Uri.parse("s3://b/a/b/c.bin"));
        for (String bad : new String[] {"b/k", "s3://", "s3://b", "s3://b/", "s3:///k"}) {
            assertEquals(ExitCodes.USAGE, assertThrows(UserError.class, () -> S3Uri.parse(bad)).exitCode(), bad);
        }
        assertEquals(4096, Sizes.parse("4KiB"));
        assertEquals(4096, Sizes.parse("4k"));
        assertEquals(8L << 20, Sizes.parse("8MiB"));
        assertEquals(1L << 30, Sizes.parse("1G"));
        assertEquals(17, Sizes.parse("17"));
        for (String bad : new String[] {"", "-1", "4 XB", "1.5M", "99999999999999999999T"}) {
            assertThrows(IllegalArgumentException.class, () -> Sizes.parse(bad), bad);
        }
        assertEquals(RdmaProtocol.RC, RdmaProtocol.parse("hipobj-rc-v2"));
        assertEquals(RdmaProtocol.CUOBJ, RdmaProtocol.parse("CuObj"));
    }

    @Test
    void usageErrorsExitTwoWithAMessage() {
        Run noArgs = run(env(), "get");
        assertEquals(ExitCodes.USAGE, noArgs.code());
        assertTrue(noArgs.err().contains("Missing required parameter"), noArgs.err());

        Run badProtocol = run(env(), "get", "s3://b/k", "f", "--protocol", "udp");
        assertEquals(ExitCodes.USAGE, badProtocol.code());
        assertTrue(badProtocol.err().contains("use cuobj, rc or http"), badProtocol.err());

        Run badUri = run(env(), "get", "b/k", dir.resolve("f").toString(), "--endpoint-url", "http://127.0.0.1:9");
        assertEquals(ExitCodes.USAGE, badUri.code());
        assertTrue(badUri.err().startsWith("objrdma: 'b/k' is not an S3 URI"), badUri.err());
        assertFalse(badUri.err().contains("\tat "), "no stack trace");

        Run badChunk = run(env(), "put", "--chunk-size", "12", "x", "s3://b/k");
        assertEquals(ExitCodes.USAGE, badChunk.code());

        for (String clients : new String[] {"0", "65"}) {
            Run badClients = run(env(), "bench", "s3://b/k", "--clients", clients, "--endpoint-url", "http://127.0.0.1:9");
            assertEquals(ExitCodes.USAGE, badClients.code(), badClients.err());
            assertTrue(badClients.err().startsWith("objrdma: --clients must be 1..64, was " + clients), badClients.err());
        }

        Run unknown = run(env(), "frobnicate");
        assertEquals(ExitCodes.USAGE, unknown.code());
        Run help = run(env(), "--help");
        assertEquals(ExitCodes.OK, help.code());
        assertTrue(help.out().contains("bench"), help.out());
    }

    @Test
    void configurationAndLocalFileErrorsHaveTheirOwnCodes() throws Exception {
        Run noEndpoint = run(env(), "get", "s3://b/k", dir.resolve("f").toString());
        assertEquals(ExitCodes.CONFIG, noEndpoint.code());
        assertTrue(noEndpoint.err().contains("no endpoint"), noEndpoint.err());

        Run noCredential = run(Map.of("HOME", dir.toString()), "get", "s3://b/k", "f", "--endpoint-url", "http://h:1");
        assertEquals(ExitCodes.CONFIG, noCredential.code());

        Run noFile = run(env(), "put", dir.resolve("missing").toString(), "s3://b/k", "--endpoint-url",
                "http://127.0.0.1:9");
        assertEquals(ExitCodes.LOCAL_IO, noFile.code());
        assertTrue(noFile.err().contains("missing"), noFile.err());

        Run unreachable = run(env(), "get", "s3://b/k", dir.resolve("f").toString(), "--endpoint-url",
                "http://127.0.0.1:9", "--protocol", "http");
        assertEquals(ExitCodes.FAILED, unreachable.code());
        assertTrue(unreachable.err().startsWith("objrdma: cannot reach the gateway"), unreachable.err());
        assertFalse(Files.exists(dir.resolve("f")), "nothing written");
        try (var files = Files.list(dir)) {
            assertEquals(0, files.filter(p -> p.getFileName().toString().endsWith(".part")).count());
        }
    }
}
