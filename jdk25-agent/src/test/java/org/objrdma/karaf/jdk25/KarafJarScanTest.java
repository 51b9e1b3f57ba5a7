package org.objrdma.karaf.jdk25;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.InvokeInstruction;
import java.net.JarURLConnection;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Offline check against real Karaf 4.4.10 class files: the rewriter finds the classes that break on JDK 24+,
 * every result verifies, and no class makes it fail.
 */
class KarafJarScanTest {

    /** Result of scanning a set of jars. */
    record Scan(int classes, int candidates, Map<String, Integer> rewritten, Map<String, String> failed,
            List<String> verifyErrors, long millis) {
    }

    @Test
    void karafShellCoreClassesAreRewrittenAndVerify() throws Exception {
        Path jar = jarOf("org/apache/karaf/util/jaas/JaasHelper.class");
        assertTrue(jar.getFileName().toString().startsWith("org.apache.karaf.shell.core-4.4.10"), jar.toString());

        // The test class path holds shell.core and its dependencies: the resources the resolver needs.
        Scan scan = scan(List.of(jar), getClass().getClassLoader());
        System.out.println("shell.core: " + scan);

        assertEquals(Map.of(), scan.failed(), "classes the rewriter failed on");
        assertEquals(List.of(), scan.verifyErrors(), "rewritten classes that do not verify");
        Map<String, Integer> rewritten = scan.rewritten();
        for (String expected : List.of(
                "org/apache/karaf/util/jaas/JaasHelper",
                "org/apache/karaf/shell/support/ShellUtil",
                "org/apache/karaf/shell/impl/console/osgi/secured/SecuredSessionFactoryImpl")) {
            assertNotNull(rewritten.get(expected), expected + " not rewritten; rewritten: " + rewritten.keySet());
        }
        // JaasHelper: getSubject in currentUserHasRole, doPrivileged(PA, acc) and doPrivileged(PEA, acc)
        assertEquals(3, rewritten.get("org/apache/karaf/util/jaas/JaasHelper"));
    }

    /**
     * Whole-distribution scan, run only with {@code -Dkaraf.system.dir=<karaf home>/system} (for example of the
     * stock {@code org.apache.karaf:apache-karaf:4.4.10:tar.gz}).
     */
    @Test
    void wholeKarafSystemRepository() throws Exception {
        String dir = System.getProperty("karaf.system.dir");
        Assumptions.assumeTrue(dir != null && !dir.isBlank(), "set -Dkaraf.system.dir to scan a Karaf system/ folder");
        List<Path> jars;
        try (Stream<Path> files = Files.walk(Paths.get(dir))) {
            jars = files.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
        }
        URL[] urls = new URL[jars.size()];
        for (int i = 0; i < urls.length; i++) {
            urls[i] = jars.get(i).toUri().toURL();
        }
        try (URLClassLoader all = new URLClassLoader(urls, ClassLoader.getPlatformClassLoader())) {
            Scan scan = scan(jars, all);
            System.out.println("system/ (" + jars.size() + " jars): classes=" + scan.classes() + " candidates="
                    + scan.candidates() + " rewritten=" + scan.rewritten().size() + " failed=" + scan.failed().size()
                    + " in " + scan.millis() + " ms");
            scan.rewritten().forEach((k, v) -> System.out.println("  rewritten " + k + " (" + v + " call sites)"));
            scan.failed().forEach((k, v) -> System.out.println("  FAILED " + k + ": " + v));
            assertEquals(Map.of(), scan.failed());
            assertEquals(List.of(), scan.verifyErrors());
        }
    }

    static Scan scan(List<Path> jars, ClassLoader resources) throws IOException {
        long start = System.nanoTime();
        int classes = 0;
        int candidates = 0;
        Map<String, Integer> rewritten = new TreeMap<>();
        Map<String, String> failed = new TreeMap<>();
        List<String> verifyErrors = new ArrayList<>();
        ClassFile verifier = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(
                ClassHierarchyResolver.ofResourceParsing(resources)
                        .orElse(ClassHierarchyResolver.ofResourceParsing(ClassLoader.getSystemClassLoader()))));
        for (Path path : jars) {
            try (JarFile jar = new JarFile(path.toFile())) {
                Enumeration<JarEntry> entries = jar.entries();
                while (entries.hasMoreElements()) {
                    JarEntry entry = entries.nextElement();
                    String name = entry.getName();
                    if (!name.endsWith(".class") || name.startsWith("META-INF/") || name.endsWith("module-info.class")) {
                        continue;
                    }
                    classes++;
                    byte[] bytes;
                    try (InputStream in = jar.getInputStream(entry)) {
                        bytes = in.readAllBytes();
                    }
                    String internal = name.substring(0, name.length() - ".class".length());
                    if (SubjectCallRewriter.isExcluded(resources, internal) || !SubjectCallRewriter.containsMarker(bytes)
                            || SubjectCallRewriter.majorVersion(bytes) > ClassFile.latestMajorVersion()) {
                        continue;
                    }
                    candidates++;
                    SubjectCallRewriter.Rewrite result;
                    try {
                        result = SubjectCallRewriter.rewrite(bytes, resources);
                    } catch (RuntimeException e) {
                        failed.put(path.getFileName() + "!" + internal, e.toString());
                        continue;
                    }
                    if (result == null) {
                        continue;
                    }
                    rewritten.merge(internal, result.calls(), Math::max);
                    var errors = verifier.verify(result.bytes());
                    if (!errors.isEmpty()) {
                        verifyErrors.add(internal + ": " + errors);
                    }
                    int shimCalls = shimCalls(ClassFile.of().parse(result.bytes()));
                    if (shimCalls != result.calls()) {
                        verifyErrors.add(internal + ": " + shimCalls + " shim calls, expected " + result.calls());
                    }
                }
            }
        }
        return new Scan(classes, candidates, rewritten, failed, verifyErrors, (System.nanoTime() - start) / 1_000_000);
    }

    private static int shimCalls(ClassModel model) {
        int n = 0;
        for (MethodModel m : model.methods()) {
            if (SubjectCallRewriter.countTargets(m) != 0) {
                return -1;
            }
            if (m.code().isEmpty()) {
                continue;
            }
            for (CodeElement e : m.code().get()) {
                if (e instanceof InvokeInstruction i && i.owner().name().equalsString(SubjectCallRewriter.SHIM_INTERNAL)) {
                    n++;
                }
            }
        }
        return n;
    }

    private static Path jarOf(String resource) throws Exception {
        URL url = KarafJarScanTest.class.getClassLoader().getResource(resource);
        assertNotNull(url, resource + " not on the test class path");
        JarURLConnection connection = (JarURLConnection) url.openConnection();
        connection.setUseCaches(false);
        return Paths.get(connection.getJarFileURL().toURI());
    }

}
