package org.objrdma.verbs.internal.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.objrdma.api.transport.Gid;
import org.objrdma.verbs.testsupport.SoftVerbs;

/** Locating and binding libmlx5 beside the libibverbs in use, and the reasons kept when DC cannot be had. */
class Mlx5DvLibraryTest {

    @Test
    void libmlx5IsLookedForBesideTheVerbsLibraryInUse() {
        assertEquals("libmlx5.so.1", Mlx5DvLibrary.locate("libibverbs.so.1"));
        assertEquals("/opt/soft/libmlx5.so.1", Mlx5DvLibrary.locate("/opt/soft/libibverbs.so.1"));
    }

    @Test
    void theRealProviderBindsEveryEntryPointDcUses() {
        String real = SoftVerbs.realLibrary();
        Path mlx5 = Path.of(Mlx5DvLibrary.locate(real));
        if (!Files.exists(mlx5)) {
            return; // ibverbs-providers not installed: the next test covers the reason
        }
        try (Mlx5DvLibrary lib = Mlx5DvLibrary.load(real)) {
            assertTrue(lib.isAvailable(), () -> lib.unavailabilityCause().orElse(""));
            assertEquals(mlx5.toString(), lib.library());
        }
    }

    @Test
    void aVerbsLibraryWithoutAProviderBesideItKeepsTheReason() throws Exception {
        Path dir = Files.createTempDirectory("nomlx5");
        try {
            Path verbs = Files.copy(Path.of(SoftVerbs.library()), dir.resolve("libibverbs.so.1"));
            Mlx5DvLibrary lib = Mlx5DvLibrary.load(verbs.toString());
            assertFalse(lib.isAvailable());
            assertEquals("no libmlx5.so.1 beside " + verbs + " (DC needs the mlx5 provider's direct verbs)",
                    lib.unavailabilityCause().orElseThrow());
            assertThrows(IllegalStateException.class, () -> lib.createSrq(null, 1, 1));
            lib.close();
            lib.close();
        } finally {
            try (var files = Files.list(dir)) {
                for (Path p : files.toList()) {
                    Files.delete(p);
                }
            }
            Files.delete(dir);
        }
    }

    @Test
    void aVerbsLibraryLackingAnEntryPointIsNamed() {
        Mlx5DvLibrary lib = Mlx5DvLibrary.load("libc.so.6");
        assertFalse(lib.isAvailable());
        String cause = lib.unavailabilityCause().orElseThrow();
        // libc has none of the verbs; the first missing one is named (or libmlx5 itself could not load)
        assertTrue(cause.equals("the libibverbs in use exports no ibv_qp_to_qp_ex") || cause.startsWith("cannot load"),
                cause);
    }

    @Test
    void anAddressVectorIsValidatedBeforeItReachesTheLibrary() {
        Gid gid = new Gid(0xfe80_0000_0000_0000L, 1);
        assertEquals(3, new Mlx5DvLibrary.AddressVector(1, 3, false, null, 0).dlid());
        assertEquals(gid, new Mlx5DvLibrary.AddressVector(1, 0, true, gid, 1).dgid());
        assertThrows(IllegalArgumentException.class, () -> new Mlx5DvLibrary.AddressVector(0, 3, false, null, 0));
        assertThrows(IllegalArgumentException.class, () -> new Mlx5DvLibrary.AddressVector(1, 0x10000, false, null, 0));
        assertThrows(IllegalArgumentException.class, () -> new Mlx5DvLibrary.AddressVector(1, 0, false, null, 0));
        assertThrows(NullPointerException.class, () -> new Mlx5DvLibrary.AddressVector(1, 0, true, null, 0));
        assertThrows(IllegalArgumentException.class, () -> new Mlx5DvLibrary.AddressVector(1, 0, true, gid, 256));
    }
}
