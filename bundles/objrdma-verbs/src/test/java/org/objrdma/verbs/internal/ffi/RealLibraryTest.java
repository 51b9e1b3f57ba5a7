package org.objrdma.verbs.internal.ffi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.objrdma.verbs.testsupport.SoftVerbs;

/**
 * The real rdma-core libibverbs on a machine without RDMA: the bindings load, and the device list says why
 * there is nothing. (On a machine with a NIC the second test reports its devices instead.)
 */
class RealLibraryTest {

    @Test
    void loadsAndBindsEveryVerb() {
        try (VerbsLibrary lib = VerbsLibrary.load(SoftVerbs.realLibrary())) {
            assertTrue(lib.isAvailable(), () -> lib.unavailabilityCause().orElse(""));
            assertFalse(lib.isSoftware(), "the real library must not look like the software device");
        }
    }

    @Test
    void noDevicesIsAnAnswerWithAReason() {
        try (VerbsLibrary lib = VerbsLibrary.load(SoftVerbs.realLibrary());
             VerbsLibrary.DeviceList list = lib.listDevices()) {
            if (!list.devices().isEmpty()) {
                return; // a machine with an RDMA device: nothing to assert about its absence
            }
            String cause = list.emptinessCause().orElseThrow();
            assertTrue(cause.startsWith("no RDMA devices ("), cause);
            // this kernel has no RDMA support at all: NULL + ENOSYS, reported as such
            if (!new java.io.File("/sys/class/infiniband_verbs").exists()) {
                assertEquals("no RDMA devices (ibv_get_device_list: ENOSYS — the kernel has no RDMA support)", cause);
            }
        }
    }

    @Test
    void aMissingLibraryIsUnavailableWithTheLoaderMessage() {
        VerbsLibrary lib = VerbsLibrary.load("/nonexistent/libibverbs.so.1");
        assertFalse(lib.isAvailable());
        String cause = lib.unavailabilityCause().orElseThrow();
        assertTrue(cause.startsWith("cannot load /nonexistent/libibverbs.so.1"), cause);
        lib.close();
        lib.close();
    }

    @Test
    void aLibraryWithoutTheVerbsIsUnavailable() {
        VerbsLibrary lib = VerbsLibrary.load("libc.so.6");
        assertFalse(lib.isAvailable());
        assertEquals("libc.so.6 is not a usable libibverbs: it exports no ibv_get_device_list",
                lib.unavailabilityCause().orElseThrow());
    }

    @Test
    void realAndSoftwareLibrariesLoadedByPathCoexist() {
        try (VerbsLibrary real = VerbsLibrary.load(SoftVerbs.realLibrary());
             VerbsLibrary soft = VerbsLibrary.load(SoftVerbs.library());
             VerbsLibrary.DeviceList realDevices = real.listDevices();
             VerbsLibrary.DeviceList softDevices = soft.listDevices()) {
            assertTrue(soft.isSoftware());
            assertFalse(real.isSoftware());
            assertEquals(1, softDevices.devices().size());
            assertEquals("softrc0", softDevices.devices().getFirst().name());
            assertTrue(realDevices.devices().stream().noneMatch(d -> d.name().equals("softrc0")),
                    "the real library must not list the software device");
        }
    }
}
