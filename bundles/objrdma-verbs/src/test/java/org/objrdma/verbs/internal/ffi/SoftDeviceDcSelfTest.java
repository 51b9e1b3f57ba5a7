package org.objrdma.verbs.internal.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs the software device's C test of the Dynamic Connection transport (src/test/native/softverbs_dc_test.c,
 * built by build.sh against the stand-in libmlx5.so.1): DCI/DCT through mlx5dv, dc_key / rkey / range
 * refusals, one DCI to two DCTs, a destroyed DCT, and both directions across two processes. A broken DC
 * device fails here, before the Java DC binding's tests fail in confusing ways.
 */
class SoftDeviceDcSelfTest {

    @Test
    void theSoftwareDevicesDcTransportPassesItsCTest() throws Exception {
        String binary = System.getProperty("objrdma.softverbs.dctest");
        assertTrue(binary != null && Files.isExecutable(Path.of(binary)),
                "objrdma.softverbs.dctest must name softverbs_dc_test built by build.sh, was " + binary);
        Process p = new ProcessBuilder(binary).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "softverbs_dc_test did not finish: " + out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains(" 0 failed"), out);
    }

    @Test
    void theStandInLibmlx5SitsBesideTheDevice() {
        String mlx5 = System.getProperty("objrdma.softverbs.mlx5");
        String verbs = System.getProperty("objrdma.softverbs.library");
        assertTrue(mlx5 != null && Files.isRegularFile(Path.of(mlx5)),
                "objrdma.softverbs.mlx5 must name the stand-in libmlx5.so.1 built by build.sh, was " + mlx5);
        assertEquals(Path.of(verbs).getParent(), Path.of(mlx5).getParent(),
                "libmlx5.so.1 must sit beside the device's libibverbs.so.1 (its rpath is $ORIGIN)");
    }
}
