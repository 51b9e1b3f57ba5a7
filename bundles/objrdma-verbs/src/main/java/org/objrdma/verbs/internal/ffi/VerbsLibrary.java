package org.objrdma.verbs.internal.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.objrdma.api.transport.Gid;

/**
 * libibverbs.so.1 bound through the FFM API: the exported control-path verbs, looked up once when the library
 * is loaded. The data-path verbs are inline in C and reached through {@link DataPath}.
 *
 * <p>Netty-style availability: {@link #load} never throws; a library that cannot be loaded, or lacks a verb,
 * gives an instance whose {@link #isAvailable()} is false and whose {@link #unavailabilityCause()} says why.
 * Whether the machine has RDMA devices is a separate question, answered by {@link #listDevices()}.
 *
 * <p>Loading: a name containing {@code /} is loaded by path ({@code dlopen} of that file), anything else by
 * the system loader's search. glibc recognises an already loaded library by its soname, so once a software
 * device built as {@code libibverbs.so.1} is loaded by path, the bare name resolves to it too, until it is
 * unloaded; two different files loaded by path coexist. {@link #close()} drops this instance's reference
 * ({@code dlclose}); the caller closes every device context first.
 *
 * <p>Thread safety: every method may be called from any thread; the verbs themselves are thread-safe.
 */
public final class VerbsLibrary implements AutoCloseable {

    /** What the system loader is asked for when no path is configured. */
    public static final String DEFAULT_LIBRARY = "libibverbs.so.1";

    private static final Linker LINKER = Linker.nativeLinker();
    /** errno capture for every libibverbs / libmlx5 downcall of this package. */
    static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    private static final long QP_ATTR_QP_STATE = IbvLayouts.offset(IbvLayouts.IBV_QP_ATTR, "qp_state");

    private final String library;
    private final Arena arena;
    private final String unavailabilityCause;
    private final boolean software;
    private volatile boolean closed;

    private MethodHandle getDeviceList;
    private MethodHandle freeDeviceList;
    private MethodHandle getDeviceName;
    private MethodHandle getDeviceGuid;
    private MethodHandle openDevice;
    private MethodHandle closeDevice;
    private MethodHandle queryDevice;
    private MethodHandle queryPort;
    private MethodHandle queryGid;
    /** {@code _ibv_query_gid_ex} (IBVERBS_1.11, rdma-core 32+), or null in an older library: GID types unknown. */
    private MethodHandle queryGidEx;
    private MethodHandle allocPd;
    private MethodHandle deallocPd;
    private MethodHandle regMr;
    private MethodHandle deregMr;
    private MethodHandle createCompChannel;
    private MethodHandle destroyCompChannel;
    private MethodHandle createCq;
    private MethodHandle destroyCq;
    private MethodHandle getCqEvent;
    private MethodHandle ackCqEvents;
    private MethodHandle createQp;
    private MethodHandle modifyQp;
    private MethodHandle queryQp;
    private MethodHandle destroyQp;
    private MethodHandle wcStatusStr;
    private MethodHandle getAsyncEvent;
    private MethodHandle ackAsyncEvent;
    /** libc {@code poll(2)}: waits for {@code async_fd} with a timeout, so the reader can stop. */
    private MethodHandle pollFd;

    private VerbsLibrary(String library, Arena arena, String unavailabilityCause, boolean software) {
        this.library = library;
        this.arena = arena;
        this.unavailabilityCause = unavailabilityCause;
        this.software = software;
    }

    /**
     * Loads {@code library} (a path, or a bare name for the system loader) and binds every verb. Never throws:
     * failures are reported by {@link #unavailabilityCause()}.
     */
    public static VerbsLibrary load(String library) {
        Objects.requireNonNull(library, "library");
        Arena arena = Arena.ofShared();
        SymbolLookup lookup;
        try {
            lookup = library.contains("/")
                    ? SymbolLookup.libraryLookup(Path.of(library), arena)
                    : SymbolLookup.libraryLookup(library, arena);
        } catch (IllegalArgumentException | IllegalCallerException e) {
            arena.close();
            return new VerbsLibrary(library, null, "cannot load " + library + ": " + e.getMessage()
                    + " (install libibverbs1, or configure library.path)", false);
        }
        boolean software = lookup.find("softverbs_set_deferred").isPresent();
        VerbsLibrary lib = new VerbsLibrary(library, arena, null, software);
        try {
            lib.bind(lookup);
            return lib;
        } catch (MissingSymbolException e) {
            arena.close();
            return new VerbsLibrary(library, null, library + " is not a usable libibverbs: " + e.getMessage(), software);
        }
    }

    private static final class MissingSymbolException extends Exception {
        private static final long serialVersionUID = 1L;

        MissingSymbolException(String message) {
            super(message);
        }
    }

    private static MethodHandle bind(SymbolLookup lookup, String symbol, FunctionDescriptor fd, Linker.Option... options)
            throws MissingSymbolException {
        MemorySegment address = lookup.find(symbol)
                .orElseThrow(() -> new MissingSymbolException("it exports no " + symbol));
        return LINKER.downcallHandle(address, fd, options);
    }

    private void bind(SymbolLookup l) throws MissingSymbolException {
        getDeviceList = bind(l, "ibv_get_device_list", FunctionDescriptor.of(ADDRESS, ADDRESS), CAPTURE_ERRNO);
        freeDeviceList = bind(l, "ibv_free_device_list", FunctionDescriptor.ofVoid(ADDRESS));
        getDeviceName = bind(l, "ibv_get_device_name", FunctionDescriptor.of(ADDRESS, ADDRESS));
        getDeviceGuid = bind(l, "ibv_get_device_guid", FunctionDescriptor.of(JAVA_LONG, ADDRESS));
        openDevice = bind(l, "ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS), CAPTURE_ERRNO);
        closeDevice = bind(l, "ibv_close_device", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        queryDevice = bind(l, "ibv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        // the exported compat entry point; the C macro of the same name is inline and not callable
        queryPort = bind(l, "ibv_query_port", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS));
        queryGid = bind(l, "ibv_query_gid", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS));
        queryGidEx = l.find("_ibv_query_gid_ex").map(a -> LINKER.downcallHandle(a,
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG))).orElse(null);
        allocPd = bind(l, "ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS), CAPTURE_ERRNO);
        deallocPd = bind(l, "ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        regMr = bind(l, "ibv_reg_mr", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT), CAPTURE_ERRNO);
        deregMr = bind(l, "ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createCompChannel = bind(l, "ibv_create_comp_channel", FunctionDescriptor.of(ADDRESS, ADDRESS), CAPTURE_ERRNO);
        destroyCompChannel = bind(l, "ibv_destroy_comp_channel", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createCq = bind(l, "ibv_create_cq",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), CAPTURE_ERRNO);
        destroyCq = bind(l, "ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        getCqEvent = bind(l, "ibv_get_cq_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), CAPTURE_ERRNO);
        ackCqEvents = bind(l, "ibv_ack_cq_events", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT));
        createQp = bind(l, "ibv_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), CAPTURE_ERRNO);
        modifyQp = bind(l, "ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
        queryQp = bind(l, "ibv_query_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, ADDRESS));
        destroyQp = bind(l, "ibv_destroy_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        wcStatusStr = bind(l, "ibv_wc_status_str", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        getAsyncEvent = bind(l, "ibv_get_async_event", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), CAPTURE_ERRNO);
        ackAsyncEvent = bind(l, "ibv_ack_async_event", FunctionDescriptor.ofVoid(ADDRESS));
        pollFd = bind(LINKER.defaultLookup(), "poll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT),
                CAPTURE_ERRNO);
    }

    /** The library as given to {@link #load}. */
    public String library() {
        return library;
    }

    /** True if the library loaded and exports every verb the bindings use. */
    public boolean isAvailable() {
        return unavailabilityCause == null && !closed;
    }

    /** Why {@link #isAvailable()} is false; empty when it is true. */
    public Optional<String> unavailabilityCause() {
        if (closed) {
            return Optional.of(library + " was unloaded");
        }
        return Optional.ofNullable(unavailabilityCause);
    }

    /** True if the loaded library is the software test device (it exports the softverbs control functions). */
    public boolean isSoftware() {
        return software;
    }

    /** Drops this instance's reference to the library. Idempotent; close every device context first. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            if (arena != null) {
                arena.close();
            }
        }
    }

    private void requireAvailable() {
        if (!isAvailable()) {
            throw new IllegalStateException("libibverbs not usable: " + unavailabilityCause().orElse("?"));
        }
    }

    static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }

    /** A downcall's unexpected throwable: runtime exceptions and errors as they are, anything else wrapped. */
    static RuntimeException unexpected(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    // ---- device list ----------------------------------------------------------------------------------

    /** One device of the list: what can be read without opening it. */
    public record DeviceEntry(String name, long nodeGuid, MemorySegment device) {
    }

    /**
     * The RDMA devices libibverbs finds. Holds the native list, which {@link #close()} frees; entries stay
     * valid until then, and contexts opened from them stay valid after it.
     */
    public final class DeviceList implements AutoCloseable {
        private final MemorySegment list;
        private final List<DeviceEntry> devices;
        private final String cause;
        private boolean closed;

        private DeviceList(MemorySegment list, List<DeviceEntry> devices, String cause) {
            this.list = list;
            this.devices = List.copyOf(devices);
            this.cause = cause;
        }

        /** The devices, in the order libibverbs listed them; empty when there are none. */
        public List<DeviceEntry> devices() {
            return devices;
        }

        /** Why there are no devices; empty when there are some. */
        public Optional<String> emptinessCause() {
            return Optional.ofNullable(cause);
        }

        @Override
        public synchronized void close() {
            if (!closed) {
                closed = true;
                if (!list.equals(MemorySegment.NULL)) {
                    try {
                        freeDeviceList.invokeExact(list);
                    } catch (Throwable t) {
                        throw unexpected(t);
                    }
                }
            }
        }
    }

    /**
     * Calls {@code ibv_get_device_list}. "No RDMA stack" is not an error here: a NULL list (errno read only
     * then — a successful call leaves a stale errno) or an empty one gives a {@link DeviceList} with no
     * devices and a cause.
     */
    public DeviceList listDevices() {
        requireAvailable();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = call.allocate(CAPTURE_LAYOUT);
            MemorySegment num = call.allocate(JAVA_INT);
            MemorySegment list = (MemorySegment) getDeviceList.invokeExact(capture, num);
            if (list.equals(MemorySegment.NULL)) {
                int errno = errno(capture);
                String why = errno == Errno.ENOSYS
                        ? "no RDMA devices (ibv_get_device_list: ENOSYS — the kernel has no RDMA support)"
                        : "no RDMA devices (ibv_get_device_list failed: " + Errno.describe(errno) + ")";
                return new DeviceList(MemorySegment.NULL, List.of(), why);
            }
            int count = num.get(JAVA_INT, 0);
            MemorySegment array = list.reinterpret((count + 1L) * ADDRESS.byteSize());
            List<DeviceEntry> devices = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                MemorySegment dev = array.getAtIndex(ADDRESS, i);
                MemorySegment namePtr = (MemorySegment) getDeviceName.invokeExact(dev);
                String name = namePtr.equals(MemorySegment.NULL) ? "device" + i : namePtr.reinterpret(64).getString(0);
                long guid = fromBigEndian((long) getDeviceGuid.invokeExact(dev));
                devices.add(new DeviceEntry(name, guid, dev));
            }
            String why = count == 0
                    ? "no RDMA devices (ibv_get_device_list returned an empty list: RDMA is supported but no device is present)"
                    : null;
            return new DeviceList(list, devices, why);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** A {@code __be64} read as a native-order long, to its numeric value. */
    private static long fromBigEndian(long raw) {
        return ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? Long.reverseBytes(raw) : raw;
    }

    // ---- device context -------------------------------------------------------------------------------

    /** {@code ibv_open_device}; the result is an {@code ibv_context*} sized to its layout. */
    public MemorySegment openDevice(DeviceEntry device) throws VerbsException {
        requireAvailable();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = call.allocate(CAPTURE_LAYOUT);
            MemorySegment ctx = (MemorySegment) openDevice.invokeExact(capture, device.device());
            if (ctx.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_open_device", errno(capture), device.name());
            }
            return ctx.reinterpret(IbvLayouts.IBV_CONTEXT.byteSize());
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // ---- asynchronous events -------------------------------------------------------------------------

    /**
     * One event of {@code ibv_get_async_event}, already acknowledged.
     *
     * @param type    the {@code enum ibv_event_type} value
     * @param portNum the port of a port event; for other events the low bits of the element pointer, unused
     */
    public record AsyncEvent(int type, int portNum) {
    }

    private static final long CONTEXT_ASYNC_FD = IbvLayouts.offset(IbvLayouts.IBV_CONTEXT, "async_fd");
    private static final long EVENT_TYPE = IbvLayouts.offset(IbvLayouts.IBV_ASYNC_EVENT, "event_type");
    private static final long EVENT_PORT = IbvLayouts.offset(IbvLayouts.IBV_ASYNC_EVENT, "element.port_num");
    private static final short POLLIN = 0x1;
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;

    /**
     * Waits up to {@code timeoutMillis} for the next asynchronous event of {@code ctx}, reads it and
     * acknowledges it at once ({@code ibv_ack_async_event}: nothing is kept of it but its type and port).
     *
     * @return the event, or null if none came in time
     * @throws VerbsException if {@code poll} or {@code ibv_get_async_event} fail for another reason than a
     *         timeout, an interrupt or EAGAIN
     */
    public AsyncEvent awaitAsyncEvent(MemorySegment ctx, int timeoutMillis) throws VerbsException {
        requireAvailable();
        int fd = ctx.get(JAVA_INT, CONTEXT_ASYNC_FD);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = call.allocate(CAPTURE_LAYOUT);
            MemorySegment pfd = call.allocate(8, 4); // struct pollfd { int fd; short events; short revents; }
            pfd.set(JAVA_INT, 0, fd);
            pfd.set(JAVA_SHORT, 4, POLLIN);
            int ready = (int) pollFd.invokeExact(capture, pfd, 1L, timeoutMillis);
            if (ready == 0) {
                return null;
            }
            if (ready < 0) {
                int e = errno(capture);
                if (e == EINTR) {
                    return null;
                }
                throw new VerbsException("poll(async_fd)", e, "fd " + fd);
            }
            MemorySegment event = call.allocate(IbvLayouts.IBV_ASYNC_EVENT);
            int rc = (int) getAsyncEvent.invokeExact(capture, ctx, event);
            if (rc != 0) {
                int e = errno(capture);
                if (e == EAGAIN || e == EINTR) {
                    return null;
                }
                throw new VerbsException("ibv_get_async_event", e, "fd " + fd);
            }
            AsyncEvent read = new AsyncEvent(event.get(JAVA_INT, EVENT_TYPE), event.get(JAVA_INT, EVENT_PORT));
            ackAsyncEvent.invokeExact(event);
            return read;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ibv_close_device}; returns 0 or an errno. */
    public int closeDevice(MemorySegment ctx) {
        try {
            return (int) closeDevice.invokeExact(ctx);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** The data-path verbs of an open context, read from its ops table. */
    public DataPath dataPath(MemorySegment ctx) {
        return DataPath.of(ctx);
    }

    /** {@code ibv_query_device}. */
    public DeviceAttributes queryDevice(MemorySegment ctx) throws VerbsException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(IbvLayouts.IBV_DEVICE_ATTR);
            int rc = (int) queryDevice.invokeExact(ctx, attr);
            if (rc != 0) {
                throw new VerbsException("ibv_query_device", rc, null);
            }
            return DeviceAttributes.read(attr);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * The exported compat {@code ibv_query_port}: it fills the 48-byte compat struct, so the buffer is zeroed
     * and larger than any release's {@code ibv_port_attr}.
     */
    public PortAttributes queryPort(MemorySegment ctx, int port) throws VerbsException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(IbvLayouts.PORT_ATTR_BUFFER_SIZE, 8);
            int rc = (int) queryPort.invokeExact(ctx, (byte) port, attr);
            if (rc != 0) {
                throw new VerbsException("ibv_query_port", rc, "port " + port);
            }
            return PortAttributes.read(attr);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * One GID table slot with its type, through {@code ibv_query_gid_ex}: empty if the slot is empty
     * ({@code ENODATA}) or the library predates the call (rdma-core before 32: types are unknown then).
     */
    public Optional<GidEntry> queryGidEntry(MemorySegment ctx, int port, int index) throws VerbsException {
        if (queryGidEx == null) {
            return Optional.empty();
        }
        try (Arena call = Arena.ofConfined()) {
            MemorySegment e = call.allocate(IbvLayouts.IBV_GID_ENTRY);
            int rc = (int) queryGidEx.invokeExact(ctx, port, index, e, 0, IbvLayouts.IBV_GID_ENTRY.byteSize());
            if (rc == Errno.ENODATA) {
                return Optional.empty();
            }
            if (rc != 0) {
                throw new VerbsException("ibv_query_gid_ex", rc, "port " + port + " index " + index);
            }
            return Optional.of(new GidEntry(e.get(JAVA_INT, GID_ENTRY_INDEX),
                    Gid.fromBytes(e.asSlice(0, 16).toArray(JAVA_BYTE)),
                    GidType.fromCode(e.get(JAVA_INT, GID_ENTRY_TYPE)), e.get(JAVA_INT, GID_ENTRY_IFINDEX)));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    private static final long GID_ENTRY_INDEX = IbvLayouts.offset(IbvLayouts.IBV_GID_ENTRY, "gid_index");
    private static final long GID_ENTRY_TYPE = IbvLayouts.offset(IbvLayouts.IBV_GID_ENTRY, "gid_type");
    private static final long GID_ENTRY_IFINDEX = IbvLayouts.offset(IbvLayouts.IBV_GID_ENTRY, "ndev_ifindex");

    /**
     * One filled GID table slot.
     *
     * @param index   table index
     * @param gid     the GID
     * @param type    IB, RoCE v1 or RoCE v2
     * @param ifindex the netdev the GID belongs to (0 on InfiniBand)
     */
    public record GidEntry(int index, Gid gid, GidType type, int ifindex) {
    }

    /** {@code ibv_query_gid}. */
    public Gid queryGid(MemorySegment ctx, int port, int index) throws VerbsException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment gid = call.allocate(IbvLayouts.IBV_GID);
            int rc = (int) queryGid.invokeExact(ctx, (byte) port, index, gid);
            if (rc != 0) {
                throw new VerbsException("ibv_query_gid", rc == -1 ? Errno.EINVAL : rc, "port " + port + " index " + index);
            }
            return Gid.fromBytes(gid.toArray(JAVA_BYTE));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // ---- protection domain and memory regions ---------------------------------------------------------

    /** {@code ibv_alloc_pd}. */
    public MemorySegment allocPd(MemorySegment ctx) throws VerbsException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = call.allocate(CAPTURE_LAYOUT);
            MemorySegment pd = (MemorySegment) allocPd.invokeExact(capture, ctx);
            if (pd.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_alloc_pd", errno(capture), null);
            }
            return pd.reinterpret(IbvLayouts.IBV_PD.byteSize());
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ibv_dealloc_pd}; 0 or an errno (EBUSY while regions or queue pairs use it). */
    public int deallocPd(MemorySegment pd) {
        try {
            return (int) deallocPd.invokeExact(pd);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** A registered region as the driver returned it. */
    public record RegisteredMemory(MemorySegment mr, long address, long length, int lkey, int rkey) {
    }

    private static final long MR_ADDR = IbvLayouts.offset(IbvLayouts.IBV_MR, "addr");
    private static final long MR_LENGTH = IbvLayouts.offset(IbvLayouts.IBV_MR, "length");
    private static final long MR_LKEY = IbvLayouts.offset(IbvLayouts.IBV_MR, "lkey");
    private static final long MR_RKEY = IbvLayouts.offset(IbvLayouts.IBV_MR, "rkey");

    /** {@code ibv_reg_mr} (the exported entry point: it registers with iova = the address). */
    public RegisteredMemory regMr(MemorySegment pd, MemorySegment memory, int accessFlags) throws VerbsException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = call.allocate(CAPTURE_LAYOUT);
            MemorySegment mr = (MemorySegment) regMr.invokeExact(capture, pd, memory, memory.byteSize(), accessFlags);
            if (mr.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_reg_mr", errno(capture), memory.byteSize() + " bytes");
            }
            mr = mr.reinterpret(IbvLayouts.IBV_MR.byteSize());
            return new RegisteredMemory(mr, mr.get(JAVA_LONG, MR_ADDR), mr.get(JAVA_LONG, MR_LENGTH),
                    mr.get(JAVA_INT, MR_LKEY), mr.get(JAVA_INT, MR_RKEY));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ibv_dereg_mr}; 0 or an errno. */
    public int deregMr(MemorySegment mr) {
        try {
            return (int) deregMr.invokeExact(mr);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // ---- completion channels and queues ---------------------------------------------------------------

    /** {@code ibv_create_comp_channel}. */
    public MemorySegment createCompChannel(MemorySegment ctx) throws VerbsException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = call.allocate(CAPTURE_LAYOUT);
            MemorySegment ch = (MemorySegment) createCompChannel.invokeExact(capture, ctx);
            if (ch.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_create_comp_channel", errno(capture), null);
            }
            return ch.reinterpret(IbvLayouts.IBV_COMP_CHANNEL.byteSize());
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ibv_destroy_comp_channel}; 0 or an errno (EBUSY while a CQ uses it). */
    public int destroyCompChannel(MemorySegment channel) {
        try {
            return (int) destroyCompChannel.invokeExact(channel);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ibv_create_cq} with room for at least {@code cqe} completions; {@code channel} may be NULL. */
    public MemorySegment createCq(MemorySegment ctx, int cqe, MemorySegment channel) throws VerbsException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = call.allocate(CAPTURE_LAYOUT);
            MemorySegment cq = (MemorySegment) createCq.invokeExact(capture, ctx, cqe, MemorySegment.NULL, channel, 0);
            if (cq.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_create_cq", errno(capture), cqe + " entries");
            }
            return cq.reinterpret(IbvLayouts.IBV_CQ.byteSize());
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ibv_destroy_cq}; 0 or an errno (EBUSY while a queue pair uses it). */
    public int destroyCq(MemorySegment cq) {
        try {
            return (int) destroyCq.invokeExact(cq);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ibv_get_cq_event}: blocks until a CQ armed with {@code req_notify_cq} fires; returns that CQ. */
    public MemorySegment getCqEvent(MemorySegment channel) throws VerbsException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = call.allocate(CAPTURE_LAYOUT);
            MemorySegment cqOut = call.allocate(ADDRESS);
            MemorySegment ctxOut = call.allocate(ADDRESS);
            int rc = (int) getCqEvent.invokeExact(capture, channel, cqOut, ctxOut);
            if (rc != 0) {
                throw new VerbsException("ibv_get_cq_event", errno(capture), null);
            }
            return cqOut.get(ADDRESS, 0).reinterpret(IbvLayouts.IBV_CQ.byteSize());
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ibv_ack_cq_events}: every event taken must be acknowledged before the CQ is destroyed. */
    public void ackCqEvents(MemorySegment cq, int events) {
        try {
            ackCqEvents.invokeExact(cq, events);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // ---- queue pairs ----------------------------------------------------------------------------------

    /** What {@code ibv_create_qp} is asked for; the driver may grant more. */
    public record QpRequest(MemorySegment sendCq, MemorySegment recvCq, int maxSendWr, int maxRecvWr,
                            int maxSendSge, int maxRecvSge, int maxInlineData) {
    }

    /** A created RC queue pair and the capacities the driver granted. */
    public record CreatedQp(MemorySegment qp, int qpNum, int maxSendWr, int maxRecvWr, int maxSendSge,
                            int maxRecvSge, int maxInlineData) {
    }

    private static final long INIT_SEND_CQ = IbvLayouts.offset(IbvLayouts.IBV_QP_INIT_ATTR, "send_cq");
    private static final long INIT_RECV_CQ = IbvLayouts.offset(IbvLayouts.IBV_QP_INIT_ATTR, "recv_cq");
    private static final long INIT_CAP = IbvLayouts.offset(IbvLayouts.IBV_QP_INIT_ATTR, "cap");
    private static final long CAP_MAX_SEND_WR = IbvLayouts.offset(IbvLayouts.IBV_QP_CAP, "max_send_wr");
    private static final long CAP_MAX_RECV_WR = IbvLayouts.offset(IbvLayouts.IBV_QP_CAP, "max_recv_wr");
    private static final long CAP_MAX_SEND_SGE = IbvLayouts.offset(IbvLayouts.IBV_QP_CAP, "max_send_sge");
    private static final long CAP_MAX_RECV_SGE = IbvLayouts.offset(IbvLayouts.IBV_QP_CAP, "max_recv_sge");
    private static final long CAP_MAX_INLINE = IbvLayouts.offset(IbvLayouts.IBV_QP_CAP, "max_inline_data");
    private static final long INIT_QP_TYPE = IbvLayouts.offset(IbvLayouts.IBV_QP_INIT_ATTR, "qp_type");
    private static final long INIT_SQ_SIG_ALL = IbvLayouts.offset(IbvLayouts.IBV_QP_INIT_ATTR, "sq_sig_all");
    private static final long QP_QP_NUM = IbvLayouts.offset(IbvLayouts.IBV_QP, "qp_num");

    /** {@code ibv_create_qp} of an RC queue pair whose requests are signaled one by one. */
    public CreatedQp createRcQp(MemorySegment pd, QpRequest request) throws VerbsException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = call.allocate(CAPTURE_LAYOUT);
            MemorySegment init = call.allocate(IbvLayouts.IBV_QP_INIT_ATTR);
            init.set(ADDRESS, INIT_SEND_CQ, request.sendCq());
            init.set(ADDRESS, INIT_RECV_CQ, request.recvCq());
            init.set(JAVA_INT, INIT_CAP + CAP_MAX_SEND_WR, request.maxSendWr());
            init.set(JAVA_INT, INIT_CAP + CAP_MAX_RECV_WR, request.maxRecvWr());
            init.set(JAVA_INT, INIT_CAP + CAP_MAX_SEND_SGE, request.maxSendSge());
            init.set(JAVA_INT, INIT_CAP + CAP_MAX_RECV_SGE, request.maxRecvSge());
            init.set(JAVA_INT, INIT_CAP + CAP_MAX_INLINE, request.maxInlineData());
            init.set(JAVA_INT, INIT_QP_TYPE, IbvConstants.IBV_QPT_RC);
            init.set(JAVA_INT, INIT_SQ_SIG_ALL, 0);
            MemorySegment qp = (MemorySegment) createQp.invokeExact(capture, pd, init);
            if (qp.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_create_qp", errno(capture), request.toString());
            }
            qp = qp.reinterpret(IbvLayouts.IBV_QP.byteSize());
            // the driver writes the capacities it granted back into init_attr.cap
            return new CreatedQp(qp, qp.get(JAVA_INT, QP_QP_NUM),
                    init.get(JAVA_INT, INIT_CAP + CAP_MAX_SEND_WR), init.get(JAVA_INT, INIT_CAP + CAP_MAX_RECV_WR),
                    init.get(JAVA_INT, INIT_CAP + CAP_MAX_SEND_SGE), init.get(JAVA_INT, INIT_CAP + CAP_MAX_RECV_SGE),
                    init.get(JAVA_INT, INIT_CAP + CAP_MAX_INLINE));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ibv_modify_qp} with an attribute struct the caller filled; 0 or an errno. */
    public int modifyQp(MemorySegment qp, MemorySegment attr, int mask) {
        try {
            return (int) modifyQp.invokeExact(qp, attr, mask);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ibv_query_qp} for the state alone. */
    public QpState queryQpState(MemorySegment qp) throws VerbsException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(IbvLayouts.IBV_QP_ATTR);
            MemorySegment init = call.allocate(IbvLayouts.IBV_QP_INIT_ATTR);
            int rc = (int) queryQp.invokeExact(qp, attr, IbvConstants.IBV_QP_STATE, init);
            if (rc != 0) {
                throw new VerbsException("ibv_query_qp", rc, null);
            }
            return QpState.fromCode(attr.get(JAVA_INT, QP_ATTR_QP_STATE));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * {@code ibv_query_qp} for the primary path: whether it has a GRH, its source GID index, destination GID and
     * LID, as the device holds them (what an operator or a test asks after a connect).
     */
    public QpPath queryQpPath(MemorySegment qp) throws VerbsException {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(IbvLayouts.IBV_QP_ATTR);
            MemorySegment init = call.allocate(IbvLayouts.IBV_QP_INIT_ATTR);
            int rc = (int) queryQp.invokeExact(qp, attr, IbvConstants.IBV_QP_AV, init);
            if (rc != 0) {
                throw new VerbsException("ibv_query_qp", rc, null);
            }
            return new QpPath(attr.get(JAVA_BYTE, QP_ATTR_AH_IS_GLOBAL) != 0,
                    Byte.toUnsignedInt(attr.get(JAVA_BYTE, QP_ATTR_AH_SGID_INDEX)),
                    Gid.fromBytes(attr.asSlice(QP_ATTR_AH_DGID, 16).toArray(JAVA_BYTE)),
                    Short.toUnsignedInt(attr.get(JAVA_SHORT, QP_ATTR_AH_DLID)));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    private static final long QP_ATTR_AH_IS_GLOBAL = IbvLayouts.offset(IbvLayouts.IBV_QP_ATTR, "ah_attr.is_global");
    private static final long QP_ATTR_AH_SGID_INDEX = IbvLayouts.offset(IbvLayouts.IBV_QP_ATTR, "ah_attr.grh.sgid_index");
    private static final long QP_ATTR_AH_DGID = IbvLayouts.offset(IbvLayouts.IBV_QP_ATTR, "ah_attr.grh.dgid");
    private static final long QP_ATTR_AH_DLID = IbvLayouts.offset(IbvLayouts.IBV_QP_ATTR, "ah_attr.dlid");

    /** A queue pair's primary path: GRH or not, source GID index, destination GID and LID. */
    public record QpPath(boolean global, int sgidIndex, Gid dgid, int dlid) {
    }

    /** {@code ibv_destroy_qp}; 0 or an errno. */
    public int destroyQp(MemorySegment qp) {
        try {
            return (int) destroyQp.invokeExact(qp);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ibv_wc_status_str}: the library's own text for a completion status. */
    public String wcStatusString(int status) {
        try {
            MemorySegment s = (MemorySegment) wcStatusStr.invokeExact(status);
            return s.equals(MemorySegment.NULL) ? "" : s.reinterpret(256).getString(0);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** Reads a native {@code uint16_t}. */
    static int u16(MemorySegment s, long offset) {
        return Short.toUnsignedInt(s.get(JAVA_SHORT, offset));
    }

    /** Reads a native {@code uint8_t}. */
    static int u8(MemorySegment s, long offset) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, offset));
    }

    /** Reads a native {@code __be64}. */
    static long be64(MemorySegment s, long offset) {
        return fromBigEndian(s.get(JAVA_LONG, offset));
    }
}
