package org.objrdma.cuobj.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;

/**
 * The facade is a server: the manifest bnd generated for it (target/classes, written before the tests run) must not
 * import the client bundle's packages, and takes its codecs from the wire bundle. Fails if a main class of this
 * bundle starts using {@code org.objrdma.client.*} again.
 */
class ClientFreeManifestTest {

    @Test
    void facadeImportsWireAndNoClientPackage() throws IOException {
        Path manifest = Path.of("target", "classes", "META-INF", "MANIFEST.MF");
        assertTrue(Files.isRegularFile(manifest), "bnd writes " + manifest.toAbsolutePath() + " before the tests");
        String imports;
        try (InputStream in = Files.newInputStream(manifest)) {
            imports = new Manifest(in).getMainAttributes().getValue("Import-Package");
        }
        assertTrue(imports != null && imports.contains("org.objrdma.wire"), "imports: " + imports);
        assertFalse(imports.contains("org.objrdma.client"), "a server bundle imports the client: " + imports);
    }
}
