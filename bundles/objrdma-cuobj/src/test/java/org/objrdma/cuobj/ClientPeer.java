package org.objrdma.cuobj;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The test JVM's handle on a {@link ClientProcess} in a second JVM: the same java binary and class path, the
 * descriptor and checksums exchanged over stdin / stdout. Every answer is awaited with a deadline, so a hung
 * client fails the test instead of hanging it.
 */
final class ClientPeer implements AutoCloseable {
    private static final long ANSWER_SECONDS = 60;

    private final Process process;
    private final Writer toClient;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
    final String agentAddress;

    ClientPeer(byte[] agentKey, long memoryBytes, int lanes) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), ClientProcess.class.getName(),
                HexFormat.of().formatHex(agentKey), Long.toString(memoryBytes), Integer.toString(lanes)));
        process = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        toClient = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = Thread.ofPlatform().daemon().name("client-peer-stdout").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    answers.add(line);
                }
            } catch (IOException e) {
                answers.add("ERR stdout closed: " + e);
            }
            answers.add("ERR client exited");
        });
        reader.setUncaughtExceptionHandler((t, e) -> answers.add("ERR " + e));
        String ready = next();
        if (!ready.startsWith("READY ")) {
            close();
            throw new IllegalStateException("client did not start: " + ready);
        }
        agentAddress = ready.substring(6);
    }

    private String next() throws InterruptedException {
        String a = answers.poll(ANSWER_SECONDS, TimeUnit.SECONDS);
        if (a == null) {
            throw new IllegalStateException("the client process did not answer within " + ANSWER_SECONDS + " s");
        }
        return a;
    }

    /** Sends one command and returns what follows {@code OK }; throws on {@code ERR}. */
    synchronized String ask(String command) throws IOException, InterruptedException {
        toClient.write(command + "\n");
        toClient.flush();
        String a = next();
        if (!a.startsWith("OK ")) {
            throw new IllegalStateException(command + " -> " + a);
        }
        return a.substring(3);
    }

    String descriptor(String op, long offset, long size, int lane) throws IOException, InterruptedException {
        return ask("DESC " + op + " " + offset + " " + size + " " + lane);
    }

    long fill(long offset, long length, long seed) throws IOException, InterruptedException {
        return Long.parseLong(ask("FILL " + offset + " " + length + " " + seed));
    }

    long crc(long offset, long length) throws IOException, InterruptedException {
        return Long.parseLong(ask("CRC " + offset + " " + length));
    }

    long laneId(int lane) throws IOException, InterruptedException {
        return Long.parseLong(ask("LANE-ID " + lane));
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        try {
            toClient.write("QUIT\n");
            toClient.flush();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (IOException | InterruptedException e) {
            process.destroyForcibly();
        }
    }
}
