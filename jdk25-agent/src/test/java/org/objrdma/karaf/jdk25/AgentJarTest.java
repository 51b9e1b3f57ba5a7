package org.objrdma.karaf.jdk25;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.objrdma.jdk25fixture.AgentMain;

/**
 * End to end with a real {@code -javaagent}: a throwaway agent jar is built from {@code target/classes} with
 * the module's manifest entries, and forked JVMs run {@link AgentMain} from the application class path (the
 * shim comes only from the agent jar, as in Karaf).
 */
class AgentJarTest {

    @TempDir
    static Path tmp;

    private static Path agentJar;
    private static Path testClasses;

    @BeforeAll
    static void buildAgentJar() throws Exception {
        Path classes = Paths.get(SubjectCallRewriter.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        testClasses = Paths.get(AgentMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Manifest manifest = new Manifest();
        Attributes main = manifest.getMainAttributes();
        main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        main.putValue("Premain-Class", System.getProperty("agent.premain.class", "org.objrdma.karaf.jdk25.Jdk25Agent"));
        main.putValue("Can-Redefine-Classes", "false");
        main.putValue("Can-Retransform-Classes", "false");
        agentJar = tmp.resolve("agent.jar");
        try (OutputStream out = Files.newOutputStream(agentJar);
                JarOutputStream jar = new JarOutputStream(out, manifest);
                Stream<Path> files = Files.walk(classes)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".class")).sorted().toList()) {
                jar.putNextEntry(new JarEntry(classes.relativize(file).toString().replace('\\', '/')));
                jar.write(Files.readAllBytes(file));
                jar.closeEntry();
            }
        }
    }

    record Run(int exit, String stdout, String stderr) {
    }

    private static Run run(Path javaHome, Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(javaHome.resolve("bin").resolve("java").toString());
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().remove("KARAF_NO_JDK25_AGENT");
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().putAll(env);
        Path out = Files.createTempFile(tmp, "out", ".txt");
        Path err = Files.createTempFile(tmp, "err", ".txt");
        pb.redirectOutput(out.toFile()).redirectError(err.toFile());
        Process process = pb.start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("forked JVM did not finish: " + command);
        }
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    private static Path currentJavaHome() {
        return Paths.get(System.getProperty("java.home"));
    }

    @Test
    void agentFixesKarafStyleCodeInAForkedJvm() throws Exception {
        Run run = run(currentJavaHome(), Map.of(), "-javaagent:" + agentJar + "=verbose",
                "-cp", testClasses.toString(), AgentMain.class.getName());
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.stdout().contains("OK CN=karaf"), run.toString());
        assertTrue(run.stderr().contains("rewrote org/objrdma/jdk25fixture/KarafStyleSubjects (4 call site(s))"),
                run.stderr());
        assertTrue(run.stderr().contains("rewritten=1 failed=0"), "shutdown summary: " + run.stderr());
    }

    @Test
    void quietWithoutVerbose() throws Exception {
        Run run = run(currentJavaHome(), Map.of(), "-javaagent:" + agentJar,
                "-cp", testClasses.toString(), AgentMain.class.getName());
        assertEquals(0, run.exit(), run.toString());
        assertFalse(run.stderr().contains("[objrdma-jdk25-agent]"), run.stderr());
    }

    @Test
    void withoutTheAgentOrWhenDisabledTheSameCodeFails() throws Exception {
        Run plain = run(currentJavaHome(), Map.of(), "-cp", testClasses.toString(), AgentMain.class.getName());
        assertNotEquals(0, plain.exit(), plain.toString());
        assertTrue(plain.stderr().contains("getSubject is not supported"), plain.stderr());

        Run disabled = run(currentJavaHome(), Map.of("KARAF_NO_JDK25_AGENT", "true"),
                "-javaagent:" + agentJar + "=verbose", "-cp", testClasses.toString(), AgentMain.class.getName());
        assertNotEquals(0, disabled.exit(), disabled.toString());
        assertTrue(disabled.stderr().contains("inactive: KARAF_NO_JDK25_AGENT is set"), disabled.stderr());
    }

    @Test
    void isAHarmlessNoOpOnAnOlderJdk() throws Exception {
        Path old = olderJdk();
        Assumptions.assumeTrue(old != null, "no JDK < 24 found (set -Dobjrdma.old.jdk=<java home>)");
        Run run = run(old, Map.of(), "-javaagent:" + agentJar + "=verbose", "-version");
        assertEquals(0, run.exit(), run.toString());
        assertTrue(run.stderr().contains("[objrdma-jdk25-agent] inactive: JDK "), run.stderr());
    }

    /** A JDK older than 24: {@code -Dobjrdma.old.jdk}, else the first one found under /usr/lib/jvm. */
    private static Path olderJdk() throws IOException {
        String configured = System.getProperty("objrdma.old.jdk");
        if (configured != null && !configured.isBlank()) {
            return Paths.get(configured);
        }
        Path jvms = Paths.get("/usr/lib/jvm");
        if (!Files.isDirectory(jvms)) {
            return null;
        }
        try (Stream<Path> homes = Files.list(jvms)) {
            for (Path home : homes.sorted().toList()) {
                Path release = home.resolve("release");
                if (!Files.isRegularFile(release) || !Files.isExecutable(home.resolve("bin/java"))) {
                    continue;
                }
                for (String line : Files.readAllLines(release, StandardCharsets.UTF_8)) {
                    if (line.startsWith("JAVA_VERSION=\"")) {
                        String v = line.substring("JAVA_VERSION=\"".length());
                        int end = v.indexOf('.') > 0 ? v.indexOf('.') : v.indexOf('"');
                        try {
                            int feature = Integer.parseInt(v.substring(0, end));
                            if (feature >= 11 && feature < 24) {
                                return home;
                            }
                        } catch (NumberFormatException ignored) {
                            // not a version we understand
                        }
                    }
                }
            }
        }
        return null;
    }
}
