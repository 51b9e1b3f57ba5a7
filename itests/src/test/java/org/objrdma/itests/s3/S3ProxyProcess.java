package org.objrdma.itests.s3;

import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.objrdma.itests.ObjRdmaTestSupport;

/**
 * s3proxy 4.1.0 (filesystem backend) in a child JVM on the test's class path, so a test can SIGKILL it: the
 * reference run of the kill-mid-PUT test, which proves that test passable before the gateway faces it.
 */
final class S3ProxyProcess implements AutoCloseable {

    private final Path data;
    private final Path log;
    private final int port;
    private Process process;

    S3ProxyProcess(Path dir) throws IOException {
        port = ObjRdmaTestSupport.freePort();
        data = Files.createDirectories(dir.resolve("data"));
        log = dir.resolve("s3proxy.log");
    }

    S3Target target() {
        return new S3Target(URI.create("http://127.0.0.1:" + port), S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY,
                S3ProxyServer.REGION);
    }

    /** Starts the JVM and returns once it answers HTTP. */
    void start() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        process = new ProcessBuilder(List.of(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                S3ProxyServer.class.getName(), data.toString(), String.valueOf(port)))
                .redirectErrorStream(true).redirectOutput(Redirect.appendTo(log.toFile())).start();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                http.send(HttpRequest.newBuilder(target().endpoint()).timeout(Duration.ofSeconds(5)).build(),
                        HttpResponse.BodyHandlers.discarding());
                return;
            } catch (IOException notYet) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    String out = Files.exists(log) ? Files.readString(log) : "";
                    throw new AssertionError("s3proxy did not start: "
                            + out.substring(Math.max(0, out.length() - 3000)), notYet);
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
        }
    }

    /** SIGKILL; returns once the JVM is gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            kill();
        }
    }
}
