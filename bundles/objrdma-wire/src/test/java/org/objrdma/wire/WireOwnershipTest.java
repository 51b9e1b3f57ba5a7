package org.objrdma.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Rules about where the codecs live, checked over the source tree so they cannot regress: no main source of a
 * bundle other than the client modules (the client, its AWS SDK plugin, the CLI) imports {@code org.objrdma.client}, and no class named like a codec of this bundle
 * exists in another bundle's main sources (no copy of a moved codec).
 */
class WireOwnershipTest {
    private static final Path BUNDLES = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern CLIENT_IMPORT = Pattern.compile("^\\s*import\\s+(static\\s+)?org\\.objrdma\\.client\\.",
            Pattern.MULTILINE);
    private static final List<String> CODECS = List.of("CuObjDescriptor.java", "CuObjTokenHeader.java", "RcToken.java",
            "RcTokenHeader.java", "AgentKeys.java", "TokenResult.java", "TokenError.java", "AddressPolicy.java",
            "RcTokenCodec.java", "RcTokenCodecs.java"); // Errno and Hex are generic names (verbs has its own native errno names)
    /** Modules that are clients themselves: the only ones whose main sources may use the client. */
    private static final List<String> CLIENT_MODULES = List.of("objrdma-client", "objrdma-client-sdk", "objrdma-cli");

    @Test
    void noServerBundleImportsTheClient() {
        assertTrue(Files.isDirectory(BUNDLES.resolve("objrdma-cuobj")), "run from bundles/objrdma-wire: " + BUNDLES);
        List<String> offenders = mainSources()
                .filter(p -> CLIENT_MODULES.stream().noneMatch(m -> p.startsWith(BUNDLES.resolve(m))))
                .filter(p -> CLIENT_IMPORT.matcher(read(p)).find())
                .map(Path::toString).toList();
        assertEquals(List.of(), offenders);
    }

    @Test
    void noCopyOfACodecOutsideThisBundle() {
        List<String> copies = mainSources()
                .filter(p -> !p.startsWith(BUNDLES.resolve("objrdma-wire")))
                .filter(p -> CODECS.contains(p.getFileName().toString()))
                .map(Path::toString).toList();
        assertEquals(List.of(), copies);
    }

    private static Stream<Path> mainSources() {
        try {
            return Files.walk(BUNDLES)
                    .filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> BUNDLES.relativize(p).toString().contains("/src/main/java/"))
                    .toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
