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
            "RcTokenCodec.java", "RcTokenCodecs.java", // Errno and Hex are generic names (verbs has its own native errno names)
            // issue 29: the copies that were merged into this bundle, under the names they had
            "SegmentStreams.java", "UserCredentials.java", "Credentials.java", "RdmaHeaderNames.java");
    /** A string literal that is exactly a header name: only {@link RdmaHeaders} spells them. */
    private static final Pattern HEADER_NAME_LITERAL = Pattern.compile("\"x-amz-rdma-[a-z-]+\"");
    /** The access-key rule's character class: only {@link UserCredentials} writes it. */
    private static final Pattern ACCESS_KEY_RULE = Pattern.compile(Pattern.quote("[A-Za-z0-9_.\\\\-]{3,128}"));
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

    @Test
    void headerNamesAndAccessKeyRulesAreSpelledOnlyHere() {
        List<String> copies = mainSources()
                .filter(p -> !p.startsWith(BUNDLES.resolve("objrdma-wire")))
                .filter(p -> HEADER_NAME_LITERAL.matcher(read(p)).find() || ACCESS_KEY_RULE.matcher(read(p)).find())
                .map(Path::toString).toList();
        assertEquals(List.of(), copies);
        String own = read(BUNDLES.resolve("objrdma-wire/src/main/java/org/objrdma/wire/UserCredentials.java"));
        assertTrue(ACCESS_KEY_RULE.matcher(own).find(), "the pattern of this check no longer matches the rule's source");
        assertTrue(HEADER_NAME_LITERAL.matcher(read(BUNDLES.resolve("objrdma-wire/src/main/java/org/objrdma/wire/RdmaHeaders.java")))
                .find(), "the pattern of this check no longer matches the header names' source");
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
