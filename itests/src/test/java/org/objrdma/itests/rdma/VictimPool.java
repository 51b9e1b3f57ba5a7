package org.objrdma.itests.rdma;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * Client JVMs made to be killed, as cheaply as a real process that holds the session's channel can be: what costs a
 * kill round is the JVM's start-up and first signed request (measured ~1.3 s start and ~0.9 s to the first transfer
 * on the loaded CI machine), so
 * <ul>
 * <li>the next victim is always already started: {@link #next()} hands over the spare and starts another on a
 *     thread of its own, so its start-up overlaps the round in progress and its audit;
 * <li>every victim runs from a JDK 25 AOT cache (JEP 483/514, {@code -XX:AOTCache}) that one trainer JVM wrote at
 *     its clean exit after it ran the caller's training commands (the same transfers as the rounds, not killed),
 *     so classes come loaded and linked. The cache needs a class path of jars only: the test-classes directory is
 *     packed into a jar once. If the cache cannot be written, victims start without it (slower, same test).
 * </ul>
 * Each victim is a separate {@code java} process with its own TCP transport and agent; the test SIGKILLs it in
 * the middle of a transfer exactly as before.
 */
public final class VictimPool implements AutoCloseable {

    private final int port;
    private final String accessKey;
    private final String secret;
    private final File log;
    private final String maxHeap;
    private final String classPath;
    private final List<String> jvmOptions;
    private final ExecutorService starter = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().daemon()
            .name("victim-starter").unstarted(r));
    private final List<RdmaChild> started = new CopyOnWriteArrayList<>();
    private CompletableFuture<RdmaChild> spare;
    private final boolean cached;

    /**
     * Trains the AOT cache in {@code workDir} with {@code training} (commands that must each answer OK), then starts
     * the first spare.
     */
    public VictimPool(int port, String accessKey, String secret, File log, String maxHeap, Path workDir,
            List<String> training) throws Exception {
        this.port = port;
        this.accessKey = accessKey;
        this.secret = secret;
        this.log = log;
        this.maxHeap = maxHeap;
        this.classPath = jarred(RdmaChild.testClassPath(), workDir);
        Path cache = workDir.resolve("rdma-victim.aot");
        // unified logging goes to stdout by default; the answers are read from there
        List<String> quiet = List.of("-Xlog:disable", "-Xlog:all=warning:stderr");
        RdmaChild trainer = RdmaChild.start(port, accessKey, secret, log, maxHeap, classPath,
                concat(quiet, List.of("-XX:AOTCacheOutput=" + cache)));
        try {
            for (String command : training) {
                RdmaChild.Answer a = trainer.call(command);
                if (!a.kind().equals("OK")) {
                    throw new AssertionError("training command " + command + ": " + a.line());
                }
            }
        } finally {
            // the cache is written at the trainer's exit (by a second JVM it forks): allow for a loaded machine
            if (!trainer.closeAndAwaitExit(Duration.ofMinutes(2))) {
                trainer.kill();
            }
        }
        this.cached = Files.isRegularFile(cache);
        this.jvmOptions = cached ? concat(quiet, List.of("-XX:AOTCache=" + cache)) : quiet;
        this.spare = startOne();
    }

    /** Whether the victims run from the trained AOT cache. */
    public boolean cached() {
        return cached;
    }

    /** A started victim (the spare), and the next spare starting behind it. One test thread calls it. */
    public RdmaChild next() {
        RdmaChild victim = spare.join();
        spare = startOne();
        return victim;
    }

    private CompletableFuture<RdmaChild> startOne() {
        return CompletableFuture.supplyAsync(() -> {
            try {
                RdmaChild c = RdmaChild.start(port, accessKey, secret, log, maxHeap, classPath, jvmOptions);
                started.add(c);
                return c;
            } catch (Exception e) {
                throw new IllegalStateException("a victim JVM did not start", e);
            }
        }, starter);
    }

    /** Kills every victim still alive (the last spare, any the test left). */
    @Override
    public void close() throws InterruptedException {
        try {
            spare.join();
        } catch (RuntimeException failed) {
            // nothing started: nothing to kill
        }
        starter.shutdownNow();
        for (RdmaChild c : started) {
            c.kill();
        }
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    /** {@code classPath} with each directory replaced by a jar of its contents (written once into {@code dir}). */
    static String jarred(String classPath, Path dir) {
        List<String> out = new ArrayList<>();
        int n = 0;
        for (String entry : classPath.split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (!Files.isDirectory(p)) {
                out.add(entry);
                continue;
            }
            Path jar = dir.resolve("classpath-dir-" + n++ + ".jar");
            if (!Files.exists(jar)) {
                writeJar(p, jar);
            }
            out.add(jar.toAbsolutePath().toString());
        }
        return String.join(File.pathSeparator, out);
    }

    private static void writeJar(Path from, Path jar) {
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file);
                Stream<Path> files = Files.walk(from)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                out.putNextEntry(new JarEntry(from.relativize(f).toString().replace(File.separatorChar, '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("packing " + from + " into " + jar, e);
        }
    }
}
