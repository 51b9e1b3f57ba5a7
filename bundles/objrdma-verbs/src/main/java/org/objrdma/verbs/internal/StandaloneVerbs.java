package org.objrdma.verbs.internal;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.objrdma.api.telemetry.Telemetry;
import org.objrdma.api.transport.Gid;
import org.objrdma.transport.common.Closer;
import org.objrdma.verbs.VerbsDevice;
import org.objrdma.verbs.internal.ffi.IbvLayouts;
import org.objrdma.verbs.internal.ffi.PortAttributes;
import org.objrdma.verbs.internal.ffi.VerbsException;
import org.objrdma.verbs.internal.ffi.VerbsLibrary;
import org.objrdma.verbs.internal.transport.DeviceInfo;
import org.objrdma.verbs.internal.transport.GidTable;
import org.objrdma.verbs.internal.transport.VerbsTransport;

/**
 * One verbs transport outside OSGi, for a plain class path (a client JVM in the integration tests, a command-line
 * client): the library loaded by path, one device's context on port 1 with its first non-zero GID, a transport on
 * it as the component would publish it (default poller, no telemetry). The same checks as the component: layouts
 * against the reference table first (wrong offsets would corrupt memory), then the library, then the device.
 *
 * <p>Ownership: {@link #close()} closes the transport (its channels and regions) and then unloads the library;
 * idempotent.
 */
public final class StandaloneVerbs implements AutoCloseable {
    private static final int PORT = 1;

    private final VerbsLibrary library;
    private final VerbsTransport transport;
    private boolean closed;

    private StandaloneVerbs(VerbsLibrary library, VerbsTransport transport) {
        this.library = library;
        this.transport = transport;
    }

    /**
     * Opens {@code deviceName} of the libibverbs at {@code libraryPath} (an absolute path or a bare soname).
     *
     * @throws IllegalStateException with the reason when the layouts differ, the library or device is unusable
     */
    public static StandaloneVerbs open(String libraryPath, String deviceName) {
        List<String> layout = IbvLayouts.mismatchesAgainstReference();
        if (!layout.isEmpty()) {
            throw new IllegalStateException("verbs struct layouts differ from the reference: " + layout);
        }
        VerbsLibrary library = VerbsLibrary.load(libraryPath);
        if (!library.isAvailable()) {
            String why = library.unavailabilityCause().orElse("unavailable");
            library.close();
            throw new IllegalStateException("cannot use " + libraryPath + ": " + why);
        }
        try {
            return new StandaloneVerbs(library, openTransport(library, deviceName));
        } catch (VerbsException | RuntimeException e) {
            library.close();
            throw new IllegalStateException("cannot open " + deviceName + " of " + libraryPath + ": " + e.getMessage(), e);
        }
    }

    private static VerbsTransport openTransport(VerbsLibrary library, String deviceName) throws VerbsException {
        try (VerbsLibrary.DeviceList list = library.listDevices()) {
            VerbsLibrary.DeviceEntry entry = list.devices().stream().filter(d -> d.name().equals(deviceName))
                    .findFirst().orElseThrow(() -> new IllegalStateException("no device " + deviceName + " in "
                            + list.devices() + list.emptinessCause().map(c -> " (" + c + ")").orElse("")));
            MemorySegment ctx = library.openDevice(entry);
            try {
                PortAttributes port = library.queryPort(ctx, PORT);
                GidTable table = GidTable.read(library, ctx, PORT, port.gidTableLength());
                int gidIndex = table.gids().isEmpty() ? 0 : table.gids().getFirst().index();
                DeviceInfo info = DeviceInfo.withGidTable(entry.name(), entry.nodeGuid(), PORT,
                        library.queryDevice(ctx), port, table, gidIndex, library.isSoftware());
                VerbsTransport transport = VerbsTransport.open(library, ctx, info, VerbsTransport.PollerSettings.DEFAULT,
                        () -> Telemetry.NOOP);
                ctx = null; // the transport owns the context now
                return transport;
            } finally {
                if (ctx != null) {
                    library.closeDevice(ctx);
                }
            }
        }
    }

    /** The transport; closed by {@link #close()}. */
    public VerbsTransport transport() {
        return transport;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Closer.closeAll(transport, library); // the library is unloaded even if the transport's close throws
    }
}
