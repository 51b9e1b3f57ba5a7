package org.objrdma.itests.rdma;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The test's side of one {@link RdmaClientMain} JVM: started with the test class path the driver handed over in
 * {@link #CLASSPATH_PROPERTY}, one command per {@link #call}, its answer parsed into key/value pairs. Its stderr (the
 * SLF4J log) goes to a file beside the Karaf home's log.
 */
public final class RdmaChild implements AutoCloseable {

    /** System property inside the container: the class path of the failsafe JVM, which holds the client's jars. */
    public static final String CLASSPATH_PROPERTY = "objrdma.it.client.classpath";
    private static final Duration ANSWER_TIMEOUT = Duration.ofMinutes(2);
    private static final String EOF = "\u0000eof";

    /** An answer line: OK / FAIL / STARTED / MID and its {@code key=value} fields. */
    public record Answer(String kind, Map<String, String> fields, String line) {
        public String get(String key) {
            return fields.get(key);
        }

        public int status() {
            return Integer.parseInt(fields.getOrDefault("status", "-1"));
        }
    }

    private final Process process;
    private final PrintStream stdin;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();

    private RdmaChild(Process process) {
        this.process = process;
        this.stdin = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
        Thread.ofPlatform().daemon().name("rdma-child-" + process.pid()).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                    lines.add(l);
                }
            } catch (IOException gone) {
                // the child died: EOF below
            }
            lines.add(EOF);
        });
    }

    /** Starts a client JVM talking to the gateway on {@code port} as {@code accessKey}. */
    public static RdmaChild start(int port, String accessKey, String secret, File log, String maxHeap)
            throws Exception {
        return start(port, accessKey, secret, log, maxHeap, testClassPath(), List.of());
    }

    /** As {@link #start(int, String, String, File, String)} with more JVM options (e.g. {@code -Dname=value}). */
    public static RdmaChild start(int port, String accessKey, String secret, File log, String maxHeap,
            List<String> jvmOptions) throws Exception {
        return start(port, accessKey, secret, log, maxHeap, testClassPath(), jvmOptions);
    }

    /**
     * A client JVM (768 MiB heap) whose RC transfers run on a verbs transport of its own on the software device
     * {@code softVerbs} ({@link RdmaClientMain#VERBS_PROPERTY}), with {@code other} known as credential
     * {@code other} and bucket {@code bucket} made (or already there).
     */
    public static RdmaChild startOnVerbs(int port, String accessKey, String secret, String otherAccessKey,
            String otherSecret, String softVerbs, String bucket, File log) throws Exception {
        RdmaChild c = start(port, accessKey, secret, log, "768m",
                List.of("-D" + RdmaClientMain.VERBS_PROPERTY + "=" + softVerbs));
        try {
            ok(c.call("cred other " + otherAccessKey + " " + otherSecret));
            Answer a = c.call("httpput /" + bucket + " - 0 0");
            assertTrue(a.line(), a.status() == 200 || "BucketAlreadyOwnedByYou".equals(a.get("code")));
            return c;
        } catch (RuntimeException | Error e) {
            c.kill();
            throw e;
        }
    }

    /** The class path the IT's configuration handed over in {@link #CLASSPATH_PROPERTY}. */
    public static String testClassPath() {
        String cp = System.getProperty(CLASSPATH_PROPERTY);
        if (cp == null || cp.isEmpty()) {
            throw new IllegalStateException(CLASSPATH_PROPERTY + " is not set (the IT's configuration passes it)");
        }
        return cp;
    }

    /** As {@link #start(int, String, String, File, String)} on {@code classPath}, with extra JVM options. */
    public static RdmaChild start(int port, String accessKey, String secret, File log, String maxHeap, String classPath,
            List<String> jvmOptions) throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        List<String> command = new ArrayList<>(List.of(java, "-Xmx" + maxHeap, "--enable-native-access=ALL-UNNAMED",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn"));
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", classPath, RdmaClientMain.class.getName(), "127.0.0.1", String.valueOf(port),
                accessKey, secret));
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(log));
        RdmaChild child = new RdmaChild(pb.start());
        child.await("HELLO", Duration.ofSeconds(60));
        return child;
    }

    /** Closes stdin (the child's loop ends and it exits) and waits up to {@code timeout}; true if it exited. */
    public boolean closeAndAwaitExit(Duration timeout) throws InterruptedException {
        stdin.close();
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public long pid() {
        return process.pid();
    }

    /**
     * A two-part multipart upload of {@code path}: CreateMultipartUpload over HTTP, part 1 ({@code size1} bytes of
     * {@code random(seed1)}) as UploadPart over {@code protocol1}, part 2 likewise over {@code protocol2},
     * CompleteMultipartUpload over HTTP; returns the bytes the completed object must hold.
     */
    public byte[] uploadTwoPartsThenCompleteOverHttp(String path, String protocol1, int size1, long seed1,
            String protocol2, int size2, long seed2) throws InterruptedException {
        Answer created = ok(call("http POST " + path + " uploads -"));
        Matcher m = Pattern.compile("<UploadId>([^<]+)</UploadId>").matcher(
                new String(Base64.getDecoder().decode(created.get("text")), StandardCharsets.UTF_8));
        assertTrue(created.line(), m.find());
        String upload = m.group(1);
        String e1 = ok(call("put " + protocol1 + " " + path + " partNumber=1&uploadId=" + upload + " " + size1 + " "
                + seed1)).get("etag");
        String e2 = ok(call("put " + protocol2 + " " + path + " partNumber=2&uploadId=" + upload + " " + size2 + " "
                + seed2)).get("etag");
        String xml = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"" + e1
                + "\"</ETag></Part><Part><PartNumber>2</PartNumber><ETag>\"" + e2 + "\"</ETag></Part></CompleteMultipartUpload>";
        ok(call("http POST " + path + " uploadId=" + upload + " "
                + Base64.getEncoder().encodeToString(xml.getBytes(StandardCharsets.UTF_8))));
        byte[] whole = new byte[size1 + size2];
        System.arraycopy(RdmaClientMain.random(size1, seed1), 0, whole, 0, size1);
        System.arraycopy(RdmaClientMain.random(size2, seed2), 0, whole, size1, size2);
        return whole;
    }

    private static Answer ok(Answer a) {
        assertEquals(a.line(), "OK", a.kind());
        return a;
    }

    /** Sends {@code command} and returns its OK / FAIL answer. */
    public Answer call(String command) throws InterruptedException {
        send(command);
        return await("OK|FAIL", ANSWER_TIMEOUT);
    }

    public void send(String command) {
        stdin.println(command);
    }

    /** The next line whose first word matches {@code kinds} (a regex), skipping others; fails at EOF or timeout. */
    public Answer await(String kinds, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> skipped = new ArrayList<>();
        while (true) {
            String line = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null || line.equals(EOF)) {
                throw new AssertionError((line == null ? "no " + kinds + " line within " + timeout
                        : "the client JVM ended (exit " + exitValue() + ")") + "; skipped: " + skipped);
            }
            String kind = line.split(" ", 2)[0];
            if (kind.matches(kinds)) {
                Map<String, String> fields = new HashMap<>();
                for (String word : line.split(" ")) {
                    int eq = word.indexOf('=');
                    if (eq > 0) {
                        fields.put(word.substring(0, eq), word.substring(eq + 1));
                    }
                }
                return new Answer(kind, fields, line);
            }
            if (kind.equals("FAIL")) {
                throw new AssertionError("waiting for " + kinds + ", the client answered: " + line);
            }
            skipped.add(line);
        }
    }

    private String exitValue() {
        try {
            return String.valueOf(process.waitFor(5, TimeUnit.SECONDS) ? process.exitValue() : "still running");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "?";
        }
    }

    /** SIGKILL, as a crash: no shutdown hooks, the kernel closes its sockets. Returns once it is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError("the client JVM " + process.pid() + " did not die");
        }
    }

    /** SIGCONT: a JVM that stopped itself ({@code --slow}) runs on. */
    public void resume() throws Exception {
        Process kill = new ProcessBuilder("kill", "-CONT", String.valueOf(process.pid())).inheritIO().start();
        if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill -CONT " + process.pid() + " failed");
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            stdin.close();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
