package org.objrdma.verbs.internal.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;
import static org.objrdma.verbs.internal.ffi.VerbsLibrary.errno;
import static org.objrdma.verbs.internal.ffi.VerbsLibrary.unexpected;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import org.objrdma.api.transport.Gid;

/**
 * The Dynamic Connection verbs through the FFM API: {@code mlx5dv_*} from {@code libmlx5.so.1} and the
 * libibverbs entry points DC needs beyond RC (address handles, shared receive queues, the extended QP).
 *
 * <p>Which libmlx5: {@link #locate} puts it beside the libibverbs in use when that one was loaded by path (the
 * software device ships its stand-in there), else the system loader's {@code libmlx5.so.1}. Like
 * {@link VerbsLibrary}, {@link #load} never throws: a missing library or entry point gives an instance whose
 * {@link #unavailabilityCause()} says why, so the verbs transport runs RC alone and reports the reason.
 *
 * <p>The work-request builders are function pointers in {@code struct ibv_qp_ex} / {@code struct mlx5dv_qp_ex}
 * (the C wrappers {@code ibv_wr_*} and {@code mlx5dv_wr_set_dc_addr} are inline); {@link DcSendQueue} calls them.
 */
public final class Mlx5DvLibrary implements AutoCloseable {

    /** The provider library's soname. */
    public static final String SONAME = "libmlx5.so.1";

    private static final Linker LINKER = Linker.nativeLinker();
    private static final StructLayout CAPTURE_LAYOUT = VerbsLibrary.CAPTURE_LAYOUT;
    private static final Linker.Option CAPTURE_ERRNO = VerbsLibrary.CAPTURE_ERRNO;

    private final String library;
    private final Arena arena;
    private final String unavailabilityCause;
    private volatile boolean closed;

    private MethodHandle isSupported;
    private MethodHandle queryDevice;
    private MethodHandle createQp;
    private MethodHandle qpExFromIbvQpEx;
    private MethodHandle qpToQpEx;
    private MethodHandle createAh;
    private MethodHandle destroyAh;
    private MethodHandle createSrq;
    private MethodHandle destroySrq;

    private Mlx5DvLibrary(String library, Arena arena, String unavailabilityCause) {
        this.library = library;
        this.arena = arena;
        this.unavailabilityCause = unavailabilityCause;
    }

    /**
     * The libmlx5 that belongs to {@code verbsLibrary}: {@value #SONAME} in the same directory when the verbs
     * library is a path, else the bare soname for the system loader.
     */
    public static String locate(String verbsLibrary) {
        Objects.requireNonNull(verbsLibrary, "verbsLibrary");
        if (!verbsLibrary.contains("/")) {
            return SONAME;
        }
        Path parent = Path.of(verbsLibrary).toAbsolutePath().getParent();
        return (parent == null ? Path.of(SONAME) : parent.resolve(SONAME)).toString();
    }

    /**
     * Loads the libmlx5 that belongs to {@code verbsLibrary} (see {@link #locate}) and binds, from it, the
     * {@code mlx5dv_*} entry points and, from {@code verbsLibrary}, the libibverbs ones DC needs. Never throws.
     */
    public static Mlx5DvLibrary load(String verbsLibrary) {
        String mlx5 = locate(verbsLibrary);
        if (mlx5.contains("/") && !Files.exists(Path.of(mlx5))) {
            return new Mlx5DvLibrary(mlx5, null, "no " + SONAME + " beside " + verbsLibrary
                    + " (DC needs the mlx5 provider's direct verbs)");
        }
        Arena arena = Arena.ofShared();
        SymbolLookup mlx5Lookup;
        SymbolLookup verbsLookup;
        try {
            verbsLookup = verbsLibrary.contains("/")
                    ? SymbolLookup.libraryLookup(Path.of(verbsLibrary), arena)
                    : SymbolLookup.libraryLookup(verbsLibrary, arena);
            mlx5Lookup = mlx5.contains("/")
                    ? SymbolLookup.libraryLookup(Path.of(mlx5), arena)
                    : SymbolLookup.libraryLookup(mlx5, arena);
        } catch (IllegalArgumentException | IllegalCallerException e) {
            arena.close();
            return new Mlx5DvLibrary(mlx5, null, "cannot load " + mlx5 + ": " + e.getMessage()
                    + " (install ibverbs-providers for the mlx5 provider)");
        }
        Mlx5DvLibrary lib = new Mlx5DvLibrary(mlx5, arena, null);
        try {
            lib.bind(mlx5Lookup, verbsLookup);
            return lib;
        } catch (MissingSymbolException e) {
            arena.close();
            return new Mlx5DvLibrary(mlx5, null, e.getMessage());
        }
    }

    private static final class MissingSymbolException extends Exception {
        private static final long serialVersionUID = 1L;

        MissingSymbolException(String message) {
            super(message);
        }
    }

    private static MethodHandle bind(SymbolLookup lookup, String where, String symbol, FunctionDescriptor fd,
            Linker.Option... options) throws MissingSymbolException {
        MemorySegment address = lookup.find(symbol)
                .orElseThrow(() -> new MissingSymbolException(where + " exports no " + symbol));
        return LINKER.downcallHandle(address, fd, options);
    }

    private void bind(SymbolLookup m, SymbolLookup v) throws MissingSymbolException {
        String ml = library;
        isSupported = bind(m, ml, "mlx5dv_is_supported", FunctionDescriptor.of(JAVA_BOOLEAN, ADDRESS));
        queryDevice = bind(m, ml, "mlx5dv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        createQp = bind(m, ml, "mlx5dv_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS),
                CAPTURE_ERRNO);
        qpExFromIbvQpEx = bind(m, ml, "mlx5dv_qp_ex_from_ibv_qp_ex", FunctionDescriptor.of(ADDRESS, ADDRESS));
        String vl = "the libibverbs in use";
        qpToQpEx = bind(v, vl, "ibv_qp_to_qp_ex", FunctionDescriptor.of(ADDRESS, ADDRESS));
        createAh = bind(v, vl, "ibv_create_ah", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), CAPTURE_ERRNO);
        destroyAh = bind(v, vl, "ibv_destroy_ah", FunctionDescriptor.of(JAVA_INT, ADDRESS));
        createSrq = bind(v, vl, "ibv_create_srq", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), CAPTURE_ERRNO);
        destroySrq = bind(v, vl, "ibv_destroy_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS));
    }

    /** What was loaded (a path or the soname). */
    public String library() {
        return library;
    }

    /** True if libmlx5 loaded and every entry point DC uses was found. */
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
            throw new IllegalStateException("libmlx5 not usable: " + unavailabilityCause().orElse("?"));
        }
    }

    // ---- capability -----------------------------------------------------------------------------------

    /**
     * Why DC cannot be used on the opened device {@code device} / {@code ctx}, or empty if it can: the device
     * must be driven by the mlx5 provider ({@code mlx5dv_is_supported}) and answer {@code mlx5dv_query_device}.
     * (Whether the firmware grants DC objects is known only when one is created; that failure is reported then.)
     */
    public Optional<String> dcUnavailability(MemorySegment device, MemorySegment ctx) {
        if (!isAvailable()) {
            return unavailabilityCause();
        }
        try (Arena call = Arena.ofConfined()) {
            if (!(boolean) isSupported.invokeExact(device)) {
                return Optional.of("the device is not driven by the mlx5 provider (mlx5dv_is_supported is false)");
            }
            MemorySegment attrs = call.allocate(Mlx5DvLayouts.MLX5DV_CONTEXT_BUFFER_SIZE, 8);
            int rc = (int) queryDevice.invokeExact(ctx, attrs);
            if (rc != 0) {
                return Optional.of("mlx5dv_query_device failed: " + Errno.describe(Math.abs(rc)));
            }
            return Optional.empty();
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // ---- shared receive queue and address handles -----------------------------------------------------

    private static final long SRQ_MAX_WR = Mlx5DvLayouts.offset(Mlx5DvLayouts.IBV_SRQ_INIT_ATTR, "attr.max_wr");
    private static final long SRQ_MAX_SGE = Mlx5DvLayouts.offset(Mlx5DvLayouts.IBV_SRQ_INIT_ATTR, "attr.max_sge");

    /** {@code ibv_create_srq}: the receive queue a DCT must have (one-sided traffic never consumes it). */
    public MemorySegment createSrq(MemorySegment pd, int maxWr, int maxSge) throws VerbsException {
        requireAvailable();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = call.allocate(CAPTURE_LAYOUT);
            MemorySegment init = call.allocate(Mlx5DvLayouts.IBV_SRQ_INIT_ATTR);
            init.set(JAVA_INT, SRQ_MAX_WR, maxWr);
            init.set(JAVA_INT, SRQ_MAX_SGE, maxSge);
            MemorySegment srq = (MemorySegment) createSrq.invokeExact(capture, pd, init);
            if (srq.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_create_srq", errno(capture), maxWr + " entries");
            }
            return srq;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ibv_destroy_srq}; 0 or an errno (EBUSY while a DCT uses it). */
    public int destroySrq(MemorySegment srq) {
        try {
            return (int) destroySrq.invokeExact(srq);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    private static final long AH_DGID = IbvLayouts.offset(IbvLayouts.IBV_AH_ATTR, "grh.dgid");
    private static final long AH_SGID_INDEX = IbvLayouts.offset(IbvLayouts.IBV_AH_ATTR, "grh.sgid_index");
    private static final long AH_HOP_LIMIT = IbvLayouts.offset(IbvLayouts.IBV_AH_ATTR, "grh.hop_limit");
    private static final long AH_DLID = IbvLayouts.offset(IbvLayouts.IBV_AH_ATTR, "dlid");
    private static final long AH_IS_GLOBAL = IbvLayouts.offset(IbvLayouts.IBV_AH_ATTR, "is_global");
    private static final long AH_PORT_NUM = IbvLayouts.offset(IbvLayouts.IBV_AH_ATTR, "port_num");

    /**
     * Where a DC target is: by LID on an InfiniBand fabric, or by GID (routed, as RoCE requires) from the local
     * GID table entry {@code sgidIndex}.
     */
    public record AddressVector(int port, int dlid, boolean global, Gid dgid, int sgidIndex) {
        public AddressVector {
            if (port < 1 || port > 255) {
                throw new IllegalArgumentException("port must be 1..255, was " + port);
            }
            if ((dlid & ~0xFFFF) != 0) {
                throw new IllegalArgumentException("dlid is 16 bits, was " + dlid);
            }
            if (global) {
                Objects.requireNonNull(dgid, "dgid");
                if (sgidIndex < 0 || sgidIndex > 255) {
                    throw new IllegalArgumentException("sgid index must be 0..255, was " + sgidIndex);
                }
            } else if (dlid == 0) {
                throw new IllegalArgumentException("a target without a GID needs a LID");
            }
        }
    }

    /** {@code ibv_create_ah}. */
    public MemorySegment createAh(MemorySegment pd, AddressVector av) throws VerbsException {
        requireAvailable();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment capture = call.allocate(CAPTURE_LAYOUT);
            MemorySegment a = call.allocate(IbvLayouts.IBV_AH_ATTR);
            a.set(JAVA_SHORT, AH_DLID, (short) av.dlid());
            a.set(JAVA_BYTE, AH_PORT_NUM, (byte) av.port());
            if (av.global()) {
                a.set(JAVA_BYTE, AH_IS_GLOBAL, (byte) 1);
                MemorySegment.copy(av.dgid().toBytes(), 0, a, JAVA_BYTE, AH_DGID, 16);
                a.set(JAVA_BYTE, AH_SGID_INDEX, (byte) av.sgidIndex());
                a.set(JAVA_BYTE, AH_HOP_LIMIT, (byte) 64);
            }
            MemorySegment ah = (MemorySegment) createAh.invokeExact(capture, pd, a);
            if (ah.equals(MemorySegment.NULL)) {
                throw new VerbsException("ibv_create_ah", errno(capture), av.toString());
            }
            return ah;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /** {@code ibv_destroy_ah}; 0 or an errno. */
    public int destroyAh(MemorySegment ah) {
        try {
            return (int) destroyAh.invokeExact(ah);
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    // ---- DC queue pairs -------------------------------------------------------------------------------

    private static final long X_SEND_CQ = Mlx5DvLayouts.offset(Mlx5DvLayouts.IBV_QP_INIT_ATTR_EX, "send_cq");
    private static final long X_RECV_CQ = Mlx5DvLayouts.offset(Mlx5DvLayouts.IBV_QP_INIT_ATTR_EX, "recv_cq");
    private static final long X_SRQ = Mlx5DvLayouts.offset(Mlx5DvLayouts.IBV_QP_INIT_ATTR_EX, "srq");
    private static final long X_MAX_SEND_WR = Mlx5DvLayouts.offset(Mlx5DvLayouts.IBV_QP_INIT_ATTR_EX, "cap.max_send_wr");
    private static final long X_MAX_SEND_SGE = Mlx5DvLayouts.offset(Mlx5DvLayouts.IBV_QP_INIT_ATTR_EX, "cap.max_send_sge");
    private static final long X_QP_TYPE = Mlx5DvLayouts.offset(Mlx5DvLayouts.IBV_QP_INIT_ATTR_EX, "qp_type");
    private static final long X_COMP_MASK = Mlx5DvLayouts.offset(Mlx5DvLayouts.IBV_QP_INIT_ATTR_EX, "comp_mask");
    private static final long X_PD = Mlx5DvLayouts.offset(Mlx5DvLayouts.IBV_QP_INIT_ATTR_EX, "pd");
    private static final long X_SEND_OPS = Mlx5DvLayouts.offset(Mlx5DvLayouts.IBV_QP_INIT_ATTR_EX, "send_ops_flags");
    private static final long M_COMP_MASK = Mlx5DvLayouts.offset(Mlx5DvLayouts.MLX5DV_QP_INIT_ATTR, "comp_mask");
    private static final long M_DC_TYPE = Mlx5DvLayouts.offset(Mlx5DvLayouts.MLX5DV_QP_INIT_ATTR, "dc_init_attr.dc_type");
    private static final long M_DCT_KEY =
            Mlx5DvLayouts.offset(Mlx5DvLayouts.MLX5DV_QP_INIT_ATTR, "dc_init_attr.dct_access_key");
    private static final long QP_NUM = IbvLayouts.offset(IbvLayouts.IBV_QP, "qp_num");

    /** A created DC queue pair: the QP and its number (a DCT's number is the DCTN descriptors carry). */
    public record DcQp(MemorySegment qp, int qpNum) {
    }

    /**
     * {@code mlx5dv_create_qp} of a DC initiator: sends RDMA WRITE and READ through the extended API, completions
     * on {@code cq}, requests signaled one by one.
     */
    public DcQp createDci(MemorySegment ctx, MemorySegment pd, MemorySegment cq, int maxSendWr, int maxSendSge)
            throws VerbsException {
        requireAvailable();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(Mlx5DvLayouts.IBV_QP_INIT_ATTR_EX);
            attr.set(ADDRESS, X_SEND_CQ, cq);
            attr.set(ADDRESS, X_RECV_CQ, cq);
            attr.set(JAVA_INT, X_MAX_SEND_WR, maxSendWr);
            attr.set(JAVA_INT, X_MAX_SEND_SGE, maxSendSge);
            attr.set(JAVA_INT, X_QP_TYPE, Mlx5DvConstants.IBV_QPT_DRIVER);
            attr.set(JAVA_INT, X_COMP_MASK,
                    Mlx5DvConstants.IBV_QP_INIT_ATTR_PD | Mlx5DvConstants.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS);
            attr.set(ADDRESS, X_PD, pd);
            attr.set(JAVA_LONG, X_SEND_OPS,
                    Mlx5DvConstants.IBV_QP_EX_WITH_RDMA_WRITE | Mlx5DvConstants.IBV_QP_EX_WITH_RDMA_READ);
            MemorySegment dv = call.allocate(Mlx5DvLayouts.MLX5DV_QP_INIT_ATTR);
            dv.set(JAVA_LONG, M_COMP_MASK, Mlx5DvConstants.MLX5DV_QP_INIT_ATTR_MASK_DC);
            dv.set(JAVA_INT, M_DC_TYPE, Mlx5DvConstants.MLX5DV_DCTYPE_DCI);
            return create(call, ctx, attr, dv, "DCI");
        }
    }

    /**
     * {@code mlx5dv_create_qp} of a DC target keyed by {@code dcKey}: a DCI must present the same key, or its
     * requests complete with an access error at the initiator and touch nothing here.
     */
    public DcQp createDct(MemorySegment ctx, MemorySegment pd, MemorySegment cq, MemorySegment srq, long dcKey)
            throws VerbsException {
        requireAvailable();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment attr = call.allocate(Mlx5DvLayouts.IBV_QP_INIT_ATTR_EX);
            attr.set(ADDRESS, X_SEND_CQ, cq);
            attr.set(ADDRESS, X_RECV_CQ, cq);
            attr.set(ADDRESS, X_SRQ, srq);
            attr.set(JAVA_INT, X_QP_TYPE, Mlx5DvConstants.IBV_QPT_DRIVER);
            attr.set(JAVA_INT, X_COMP_MASK, Mlx5DvConstants.IBV_QP_INIT_ATTR_PD);
            attr.set(ADDRESS, X_PD, pd);
            MemorySegment dv = call.allocate(Mlx5DvLayouts.MLX5DV_QP_INIT_ATTR);
            dv.set(JAVA_LONG, M_COMP_MASK, Mlx5DvConstants.MLX5DV_QP_INIT_ATTR_MASK_DC);
            dv.set(JAVA_INT, M_DC_TYPE, Mlx5DvConstants.MLX5DV_DCTYPE_DCT);
            dv.set(JAVA_LONG, M_DCT_KEY, dcKey);
            return create(call, ctx, attr, dv, "DCT");
        }
    }

    private DcQp create(Arena call, MemorySegment ctx, MemorySegment attr, MemorySegment dv, String what)
            throws VerbsException {
        try {
            MemorySegment capture = call.allocate(CAPTURE_LAYOUT);
            MemorySegment qp = (MemorySegment) createQp.invokeExact(capture, ctx, attr, dv);
            if (qp.equals(MemorySegment.NULL)) {
                // the DC key is never part of a message
                throw new VerbsException("mlx5dv_create_qp", errno(capture), what);
            }
            qp = qp.reinterpret(IbvLayouts.IBV_QP.byteSize());
            return new DcQp(qp, qp.get(JAVA_INT, QP_NUM));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }

    /**
     * The extended send queue of a DCI: {@code ibv_qp_to_qp_ex} and {@code mlx5dv_qp_ex_from_ibv_qp_ex}, with the
     * builder slots read once.
     */
    public DcSendQueue sendQueue(DcQp dci) {
        requireAvailable();
        try {
            MemorySegment qpEx = (MemorySegment) qpToQpEx.invokeExact(dci.qp());
            if (qpEx.equals(MemorySegment.NULL)) {
                throw new IllegalStateException("ibv_qp_to_qp_ex returned NULL: the DCI was not created with"
                        + " IBV_QP_INIT_ATTR_SEND_OPS_FLAGS");
            }
            qpEx = qpEx.reinterpret(Mlx5DvLayouts.IBV_QP_EX.byteSize());
            MemorySegment mqp = (MemorySegment) qpExFromIbvQpEx.invokeExact(qpEx);
            if (mqp.equals(MemorySegment.NULL)) {
                throw new IllegalStateException("mlx5dv_qp_ex_from_ibv_qp_ex returned NULL");
            }
            return new DcSendQueue(qpEx, mqp.reinterpret(Mlx5DvLayouts.MLX5DV_QP_EX.byteSize()));
        } catch (Throwable t) {
            throw unexpected(t);
        }
    }
}
