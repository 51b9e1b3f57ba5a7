package org.objrdma.verbs.internal.ffi;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.objrdma.api.transport.Gid;

/**
 * Fills {@code struct ibv_qp_attr} for each RC state change and calls {@code ibv_modify_qp} with exactly the
 * mask {@link QpTransitions} names. Control path: one small confined arena per call.
 */
public final class QpModifier {

    private static long off(String field) {
        return IbvLayouts.offset(IbvLayouts.IBV_QP_ATTR, field);
    }

    private static final long QP_STATE = off("qp_state");
    private static final long PATH_MTU = off("path_mtu");
    private static final long RQ_PSN = off("rq_psn");
    private static final long SQ_PSN = off("sq_psn");
    private static final long DEST_QP_NUM = off("dest_qp_num");
    private static final long QP_ACCESS_FLAGS = off("qp_access_flags");
    private static final long AH_DGID = off("ah_attr.grh.dgid");
    private static final long AH_SGID_INDEX = off("ah_attr.grh.sgid_index");
    private static final long AH_HOP_LIMIT = off("ah_attr.grh.hop_limit");
    private static final long AH_DLID = off("ah_attr.dlid");
    private static final long AH_SL = off("ah_attr.sl");
    private static final long AH_IS_GLOBAL = off("ah_attr.is_global");
    private static final long AH_PORT_NUM = off("ah_attr.port_num");
    private static final long PKEY_INDEX = off("pkey_index");
    private static final long MAX_RD_ATOMIC = off("max_rd_atomic");
    private static final long MAX_DEST_RD_ATOMIC = off("max_dest_rd_atomic");
    private static final long MIN_RNR_TIMER = off("min_rnr_timer");
    private static final long PORT_NUM = off("port_num");
    private static final long TIMEOUT = off("timeout");
    private static final long RETRY_CNT = off("retry_cnt");
    private static final long RNR_RETRY = off("rnr_retry");

    private final VerbsLibrary library;

    public QpModifier(VerbsLibrary library) {
        this.library = library;
    }

    /** Where the peer is and how to reach it (the RTR address vector and receive-side numbers). */
    public record RtrParams(int destQpNum, int rqPsn, int pathMtu, Gid destGid, int destLid, boolean global,
                            int sgidIndex, int port, int maxDestRdAtomic, int minRnrTimer) {
    }

    /** The send side's numbers and retry policy. */
    public record RtsParams(int sqPsn, int timeout, int retryCount, int rnrRetry, int maxRdAtomic) {
    }

    /** RESET → INIT; returns 0 or an errno. */
    public int toInit(MemorySegment qp, int port, int accessFlags) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment a = call.allocate(IbvLayouts.IBV_QP_ATTR);
            a.set(JAVA_INT, QP_STATE, QpState.INIT.code());
            a.set(JAVA_SHORT, PKEY_INDEX, (short) 0);
            a.set(JAVA_BYTE, PORT_NUM, (byte) port);
            a.set(JAVA_INT, QP_ACCESS_FLAGS, accessFlags);
            return library.modifyQp(qp, a, QpTransitions.requiredMask(QpState.RESET, QpState.INIT));
        }
    }

    /** INIT → RTR; returns 0 or an errno. */
    public int toRtr(MemorySegment qp, RtrParams p) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment a = call.allocate(IbvLayouts.IBV_QP_ATTR);
            a.set(JAVA_INT, QP_STATE, QpState.RTR.code());
            a.set(JAVA_INT, PATH_MTU, p.pathMtu());
            a.set(JAVA_INT, DEST_QP_NUM, p.destQpNum());
            a.set(JAVA_INT, RQ_PSN, p.rqPsn());
            a.set(JAVA_BYTE, MAX_DEST_RD_ATOMIC, (byte) p.maxDestRdAtomic());
            a.set(JAVA_BYTE, MIN_RNR_TIMER, (byte) p.minRnrTimer());
            a.set(JAVA_SHORT, AH_DLID, (short) p.destLid());
            a.set(JAVA_BYTE, AH_SL, (byte) 0);
            a.set(JAVA_BYTE, AH_PORT_NUM, (byte) p.port());
            if (p.global()) {
                a.set(JAVA_BYTE, AH_IS_GLOBAL, (byte) 1);
                MemorySegment.copy(p.destGid().toBytes(), 0, a, JAVA_BYTE, AH_DGID, 16);
                a.set(JAVA_BYTE, AH_SGID_INDEX, (byte) p.sgidIndex());
                a.set(JAVA_BYTE, AH_HOP_LIMIT, (byte) 64);
            }
            return library.modifyQp(qp, a, QpTransitions.requiredMask(QpState.INIT, QpState.RTR));
        }
    }

    /** RTR → RTS; returns 0 or an errno. */
    public int toRts(MemorySegment qp, RtsParams p) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment a = call.allocate(IbvLayouts.IBV_QP_ATTR);
            a.set(JAVA_INT, QP_STATE, QpState.RTS.code());
            a.set(JAVA_INT, SQ_PSN, p.sqPsn());
            a.set(JAVA_BYTE, TIMEOUT, (byte) p.timeout());
            a.set(JAVA_BYTE, RETRY_CNT, (byte) p.retryCount());
            a.set(JAVA_BYTE, RNR_RETRY, (byte) p.rnrRetry());
            a.set(JAVA_BYTE, MAX_RD_ATOMIC, (byte) p.maxRdAtomic());
            return library.modifyQp(qp, a, QpTransitions.requiredMask(QpState.RTR, QpState.RTS));
        }
    }

    /** Any → ERR: outstanding and later requests complete with WR_FLUSH_ERR. Returns 0 or an errno. */
    public int toError(MemorySegment qp) {
        return toStateOnly(qp, QpState.ERR);
    }

    /** Any → RESET: the queues are emptied without completions. Returns 0 or an errno. */
    public int toReset(MemorySegment qp) {
        return toStateOnly(qp, QpState.RESET);
    }

    private int toStateOnly(MemorySegment qp, QpState to) {
        try (Arena call = Arena.ofConfined()) {
            MemorySegment a = call.allocate(IbvLayouts.IBV_QP_ATTR);
            a.set(JAVA_INT, QP_STATE, to.code());
            return library.modifyQp(qp, a, QpTransitions.STATE_ONLY);
        }
    }
}
