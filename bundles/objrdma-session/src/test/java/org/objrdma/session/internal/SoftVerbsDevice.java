package org.objrdma.session.internal;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Gid;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.internal.ffi.IbvLayouts;
import org.objrdma.verbs.internal.ffi.PortAttributes;
import org.objrdma.verbs.internal.ffi.VerbsException;
import org.objrdma.verbs.internal.ffi.VerbsLibrary;
import org.objrdma.verbs.internal.transport.DeviceInfo;
import org.objrdma.verbs.internal.transport.VerbsTransport;

/**
 * The software verbs device of objrdma-verbs' test build (a drop-in {@code libibverbs.so.1}, system property
 * {@code objrdma.softverbs.library}) loaded by path, and verbs transports on it opened the way the verbs
 * component opens them (one device context and protection domain each, port 1, GID index 0). Written here
 * rather than taken from the verbs module's test jar so this module depends on its main artifact only.
 *
 * <p>The device lives in this process: queue pairs of every context connect to each other by QPN, so a
 * server transport and a client transport here are two "hosts" on one fabric.
 */
final class SoftVerbsDevice implements AutoCloseable {
    static final String LIBRARY_PROPERTY = "objrdma.softverbs.library";
    private static final String DEVICE = "softrc0";
    private static final int PORT = 1;

    private final VerbsLibrary library;

    private SoftVerbsDevice(VerbsLibrary library) {
        this.library = library;
    }

    /** Absolute path of the software device; fails with what to do when the verbs module's build has not made it. */
    static Path libraryPath() {
        String path = System.getProperty(LIBRARY_PROPERTY);
        if (path == null || !Files.isRegularFile(Path.of(path))) {
            throw new IllegalStateException(LIBRARY_PROPERTY + " must name the software verbs device that"
                    + " bundles/objrdma-verbs builds in its test phase (src/test/native/build.sh, needs gcc and"
                    + " libibverbs-dev); was " + path);
        }
        return Path.of(path).toAbsolutePath();
    }

    /** Loads the device; refuses a library that is not the software device or whose struct layouts differ. */
    static SoftVerbsDevice load() {
        // as the verbs component does before touching the library: wrong offsets would corrupt memory
        List<String> layout = IbvLayouts.mismatchesAgainstReference();
        if (!layout.isEmpty()) {
            throw new IllegalStateException("verbs struct layouts differ from the reference: " + layout);
        }
        VerbsLibrary library = VerbsLibrary.load(libraryPath().toString());
        if (!library.isAvailable() || !library.isSoftware()) {
            String why = library.unavailabilityCause().orElse("it is not the software device");
            library.close();
            throw new IllegalStateException("cannot use " + libraryPath() + ": " + why);
        }
        return new SoftVerbsDevice(library);
    }

    /**
     * A verbs transport on a new context of {@code softrc0}: what the verbs component publishes as
     * {@code verbs:softrc0}. The caller closes it, before {@link #close()}.
     */
    VerbsTransport openTransport(Supplier<Telemetry> telemetry) throws VerbsException {
        try (VerbsLibrary.DeviceList list = library.listDevices()) {
            VerbsLibrary.DeviceEntry entry = list.devices().stream().filter(d -> d.name().equals(DEVICE)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("the software device lists no " + DEVICE + ": "
                            + list.devices() + list.emptinessCause().map(c -> " (" + c + ")").orElse("")));
            MemorySegment ctx = library.openDevice(entry);
            try {
                PortAttributes port = library.queryPort(ctx, PORT);
                List<VerbsDevice.IndexedGid> gids = new ArrayList<>();
                Gid gid0 = library.queryGid(ctx, PORT, 0);
                if (!gid0.equals(Gid.ZERO)) {
                    gids.add(new VerbsDevice.IndexedGid(0, gid0));
                }
                DeviceInfo info = new DeviceInfo(entry.name(), entry.nodeGuid(), PORT, library.queryDevice(ctx), port,
                        gids, 0, true);
                VerbsTransport transport = VerbsTransport.open(library, ctx, info, VerbsTransport.PollerSettings.DEFAULT,
                        telemetry);
                ctx = null; // the transport owns the context now
                return transport;
            } finally {
                if (ctx != null) {
                    library.closeDevice(ctx);
                }
            }
        }
    }

    /** Drops the library; close every transport on it first. */
    @Override
    public void close() {
        library.close();
    }

    // ---- the device's test controls (exported functions of version node SOFTVERBS_1.0) ------------------

    private static MethodHandle setDeferred;
    private static MethodHandle setDelayUs;

    private static synchronized void bindControls() {
        if (setDeferred != null) {
            return;
        }
        // the global arena keeps the device loaded for the rest of the JVM: its controls are process-wide anyway
        SymbolLookup lookup = SymbolLookup.libraryLookup(libraryPath(), Arena.global());
        Linker linker = Linker.nativeLinker();
        setDeferred = linker.downcallHandle(lookup.find("softverbs_set_deferred").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        setDelayUs = linker.downcallHandle(lookup.find("softverbs_set_delay_us").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    }

    /**
     * Deferred completion on or off: a worker thread executes each send request after {@code post_send}
     * returned (as a NIC does) instead of inside it. Turning it off waits until the queue is empty.
     *
     * @return the previous setting
     */
    static boolean setDeferred(boolean on) {
        bindControls();
        try {
            return (int) setDeferred.invokeExact(on ? 1 : 0) != 0;
        } catch (Throwable t) {
            throw new IllegalStateException("softverbs_set_deferred failed", t);
        }
    }

    /** Least time between post and execution in deferred mode; returns the previous value. */
    static int setDelayMicros(int micros) {
        bindControls();
        try {
            return (int) setDelayUs.invokeExact(micros);
        } catch (Throwable t) {
            throw new IllegalStateException("softverbs_set_delay_us failed", t);
        }
    }
}
