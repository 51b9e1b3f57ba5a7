package org.objrdma.verbs.internal.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs the software device's own C test (src/test/native/softverbs_test.c, built by build.sh) so that a
 * broken device fails the build here, before the Java tests built on it fail in confusing ways.
 */
class SoftDeviceSelfTest {

    @Test
    void theSoftwareDevicePassesItsOwnCTest() throws Exception {
        String binary = System.getProperty("objrdma.softverbs.selftest");
        assertTrue(binary != null && Files.isExecutable(Path.of(binary)),
                "objrdma.softverbs.selftest must name softverbs_test built by build.sh, was " + binary);
        Process p = new ProcessBuilder(binary).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "softverbs_test did not finish: " + out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains(" 0 failed"), out);
    }
}
