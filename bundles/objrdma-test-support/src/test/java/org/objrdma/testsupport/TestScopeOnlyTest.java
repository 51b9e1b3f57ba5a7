package org.objrdma.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** This jar is test code: every pom of the project that depends on it does so in test scope. */
class TestScopeOnlyTest {
    private static final Path ROOT = Path.of("../..").toAbsolutePath().normalize();
    private static final Pattern DEPENDENCY = Pattern.compile("<dependency>(.*?)</dependency>", Pattern.DOTALL);

    @Test
    void everyDependencyOnThisJarIsTestScoped() throws IOException {
        assertTrue(Files.isRegularFile(ROOT.resolve("bundles/pom.xml")), "run from bundles/objrdma-test-support: " + ROOT);
        List<String> offenders;
        try (Stream<Path> poms = Files.walk(ROOT, 4)) {
            offenders = poms.filter(p -> p.getFileName().toString().equals("pom.xml"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .filter(TestScopeOnlyTest::usesThisJarOutsideTestScope)
                    .map(Path::toString).toList();
        }
        assertEquals(List.of(), offenders);
    }

    private static boolean usesThisJarOutsideTestScope(Path pom) {
        try {
            Matcher m = DEPENDENCY.matcher(Files.readString(pom));
            while (m.find()) {
                String d = m.group(1);
                if (d.contains("<artifactId>objrdma-test-support</artifactId>") && !d.contains("<scope>test</scope>")) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
