package org.objrdma.verbs.internal.ffi;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The state changes of DC queue pairs. Unlike RC, neither side names a peer: a DCI's RTR carries only its own
 * port (the target travels with each request), a DCT's RTR the port, GID index and the RNR timer it answers with.
 * The masks are what the mlx5 provider demands of each type (rdma-core's {@code mlx5dv_create_qp(3)}).
 */
public final class DcQpModifier {

    private static long off(String field) {
        return IbvLayouts.offset(IbvLayouts.IBV_QP_ATTR, field);
    }

    private static final long QP_STATE = off("qp_state");
    private static final long PATH_MTU = off("path_mtu");
    private static final long SQ_PSN = off("sq_psn");
    private static final long QP_ACCESS_FLAGS = off("qp_access_flags");
    private static final long PKEY_INDEX = off("pkey_index");
    private static final long PORT_NUM = off("port_num");
    private static final long AH_PORT_NUM = off("ah_attr.port_num");
    private static final long AH_IS_GLOBAL = off("ah_attr.is_global");
    private static final long AH_SGID_INDEX = off("ah_attr.grh.sgid_index");
    private static final long AH_HOP_LIMIT = off("ah_attr.grh.hop_limit");
    private static final long MIN_RNR_TIMER = off("min_rnr_timer");
    private static final long MAX_RD_ATOMIC = off("max_rd_atomic");
    private static final long TIMEOUT = off("timeout");
    private static final long RETRY_CNT = off("retry_cnt");
    private static final long RNR_RETRY = off("rnr_retry");

    /** DCI RESET → INIT. */
    public static final int DCI_INIT_MASK = IbvConstants.IBV_QP_STATE | IbvConstants.IBV_QP_PKEY_INDEX
            | IbvConstants.IBV_QP_PORT;
    /** DCI INIT → RTR. */
    public static final int DCI_RTR_MASK = IbvConstants.IBV_QP_STATE | IbvConstants.IBV_QP_PATH_MTU
            | IbvConstants.IBV_QP_AV;
    /** DCI RTR → RTS. */
    public static final int DCI_RTS_MASK = IbvConstants.IBV_QP_STATE | IbvConstants.IBV_QP_TIMEOUT
            | IbvConstants.IBV_QP_RETRY_CNT | IbvConstants.IBV_QP_RNR_RETRY | IbvConstants.IBV_QP_SQ_PSN
            | IbvConstants.IBV_QP_MAX_QP_RD_ATOMIC;
    /** DCT RESET → INIT: the access the target grants to any initiator holding its key. */
    public static final int DCT_INIT_MASK = DCI_INIT_MASK | IbvConstants.IBV_QP_ACCESS_FLAGS;
    /** DCT INIT → RTR: a DCT is ready to serve at RTR. */
    public static final int DCT_RTR_MASK = IbvConstants.IBV_QP_STATE | IbvConstants.IBV_QP_MIN_RNR_TIMER
            | IbvConstants.IBV_QP_AV | IbvConstants.IBV_QP_PATH_MTU;

    private final VerbsLibrary library;
    /** The state-only transitions (ERR, RESET) are the same for every queue pair type. */
    private final QpModifier stateOnly;

    public DcQpModifier(VerbsLibrary library) {
        this.library = library;
        this.stateOnly = new QpModifier(library);
    }

    /**
     * Brings a DCI to RTS on {@code port}: {@code global} with {@code sgidIndex} on a RoCE port (the GID the
     * requests leave from), {@code timeout}/{@code retryCount}/{@code rnrRetry} as for RC. Returns 0 or an errno.
     */
    public int dciToRts(MemorySegment qp, int port, int pathMtu, boolean global, int sgidIndex, int timeout,
            int retryCount, int rnrRetry, int maxRdAtomic) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment a = call.allocate(IbvLayouts.IBV_QP_ATTR);
            a.set(JAVA_INT, QP_STATE, QpState.INIT.code());
            a.set(JAVA_SHORT, PKEY_INDEX, (short) 0);
            a.set(JAVA_BYTE, PORT_NUM, (byte) port);
            int rc = library.modifyQp(qp, a, DCI_INIT_MASK);
            if (rc != 0) {
                return rc;
            }
            a.fill((byte) 0);
            a.set(JAVA_INT, QP_STATE, QpState.RTR.code());
            a.set(JAVA_INT, PATH_MTU, pathMtu);
            addressVector(a, port, global, sgidIndex);
            rc = library.modifyQp(qp, a, DCI_RTR_MASK);
            if (rc != 0) {
                return rc;
            }
            a.fill((byte) 0);
            a.set(JAVA_INT, QP_STATE, QpState.RTS.code());
            a.set(JAVA_INT, SQ_PSN, 0);
            a.set(JAVA_BYTE, TIMEOUT, (byte) timeout);
            a.set(JAVA_BYTE, RETRY_CNT, (byte) retryCount);
            a.set(JAVA_BYTE, RNR_RETRY, (byte) rnrRetry);
            a.set(JAVA_BYTE, MAX_RD_ATOMIC, (byte) maxRdAtomic);
            return library.modifyQp(qp, a, DCI_RTS_MASK);
        }
    }

    /** Brings a DCT to RTR (serving) on {@code port} with the remote access {@code accessFlags}; 0 or an errno. */
    public int dctToRtr(MemorySegment qp, int port, int pathMtu, boolean global, int sgidIndex, int accessFlags,
            int minRnrTimer) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment a = call.allocate(IbvLayouts.IBV_QP_ATTR);
            a.set(JAVA_INT, QP_STATE, QpState.INIT.code());
            a.set(JAVA_SHORT, PKEY_INDEX, (short) 0);
            a.set(JAVA_BYTE, PORT_NUM, (byte) port);
            a.set(JAVA_INT, QP_ACCESS_FLAGS, accessFlags);
            int rc = library.modifyQp(qp, a, DCT_INIT_MASK);
            if (rc != 0) {
                return rc;
            }
            a.fill((byte) 0);
            a.set(JAVA_INT, QP_STATE, QpState.RTR.code());
            a.set(JAVA_INT, PATH_MTU, pathMtu);
            a.set(JAVA_BYTE, MIN_RNR_TIMER, (byte) minRnrTimer);
            addressVector(a, port, global, sgidIndex);
            return library.modifyQp(qp, a, DCT_RTR_MASK);
        }
    }

    private static void addressVector(MemorySegment a, int port, boolean global, int sgidIndex) {
        a.set(JAVA_BYTE, AH_PORT_NUM, (byte) port);
        if (global) {
            a.set(JAVA_BYTE, AH_IS_GLOBAL, (byte) 1);
            a.set(JAVA_BYTE, AH_SGID_INDEX, (byte) sgidIndex);
            a.set(JAVA_BYTE, AH_HOP_LIMIT, (byte) 64);
        }
    }

    /** Any → ERR (outstanding requests flush). Returns 0 or an errno. */
    public int toError(MemorySegment qp) {
        return stateOnly.toError(qp);
    }

    /** Any → RESET (the queues are emptied; a DCI is then brought back with {@link #dciToRts}). */
    public int toReset(MemorySegment qp) {
        return stateOnly.toReset(qp);
    }
}
