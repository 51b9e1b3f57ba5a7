package org.objrdma.verbs.internal.ffi;

import static org.objrdma.verbs.internal.ffi.IbvConstants.IBV_QP_ACCESS_FLAGS;
import static org.objrdma.verbs.internal.ffi.IbvConstants.IBV_QP_AV;
import static org.objrdma.verbs.internal.ffi.IbvConstants.IBV_QP_DEST_QPN;
import static org.objrdma.verbs.internal.ffi.IbvConstants.IBV_QP_MAX_DEST_RD_ATOMIC;
import static org.objrdma.verbs.internal.ffi.IbvConstants.IBV_QP_MAX_QP_RD_ATOMIC;
import static org.objrdma.verbs.internal.ffi.IbvConstants.IBV_QP_MIN_RNR_TIMER;
import static org.objrdma.verbs.internal.ffi.IbvConstants.IBV_QP_PATH_MTU;
import static org.objrdma.verbs.internal.ffi.IbvConstants.IBV_QP_PKEY_INDEX;
import static org.objrdma.verbs.internal.ffi.IbvConstants.IBV_QP_PORT;
import static org.objrdma.verbs.internal.ffi.IbvConstants.IBV_QP_RETRY_CNT;
import static org.objrdma.verbs.internal.ffi.IbvConstants.IBV_QP_RNR_RETRY;
import static org.objrdma.verbs.internal.ffi.IbvConstants.IBV_QP_RQ_PSN;
import static org.objrdma.verbs.internal.ffi.IbvConstants.IBV_QP_SQ_PSN;
import static org.objrdma.verbs.internal.ffi.IbvConstants.IBV_QP_STATE;
import static org.objrdma.verbs.internal.ffi.IbvConstants.IBV_QP_TIMEOUT;

/**
 * The RC queue-pair state changes the transport makes and the attribute masks each needs (IB spec, as the
 * kernel's {@code qp_state_table} enforces them). Checked in Java before {@code ibv_modify_qp}, so a wrong
 * move is refused with a message instead of an EINVAL from the driver.
 */
public final class QpTransitions {
    private QpTransitions() {
    }

    /** RESET → INIT: port, P_Key index and the access the peer gets. */
    public static final int RESET_TO_INIT = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
    /** INIT → RTR: the path to the peer and the receive side's numbers. */
    public static final int INIT_TO_RTR = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN
            | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    /** RTR → RTS: the send side's numbers and retry policy. */
    public static final int RTR_TO_RTS = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT
            | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
    /** Any → ERR or RESET: the state alone. */
    public static final int STATE_ONLY = IBV_QP_STATE;

    /** True if an RC queue pair may move from {@code from} to {@code to} with {@code ibv_modify_qp}. */
    public static boolean isAllowed(QpState from, QpState to) {
        if (from == QpState.UNKNOWN || to == QpState.UNKNOWN) {
            return false;
        }
        if (to == QpState.RESET || to == QpState.ERR) {
            return true;
        }
        return switch (from) {
            case RESET -> to == QpState.INIT;
            case INIT -> to == QpState.INIT || to == QpState.RTR;
            case RTR -> to == QpState.RTS;
            case RTS -> to == QpState.RTS || to == QpState.SQD;
            case SQD -> to == QpState.RTS || to == QpState.SQD;
            case SQE -> to == QpState.RTS;
            default -> false;
        };
    }

    /**
     * The mask {@code ibv_modify_qp} needs for the moves the transport makes.
     *
     * @throws IllegalStateException for a move RC does not allow or the transport never makes
     */
    public static int requiredMask(QpState from, QpState to) {
        if (!isAllowed(from, to)) {
            throw new IllegalStateException("an RC queue pair cannot move from " + from + " to " + to);
        }
        if (to == QpState.RESET || to == QpState.ERR) {
            return STATE_ONLY;
        }
        if (from == QpState.RESET && to == QpState.INIT) {
            return RESET_TO_INIT;
        }
        if (from == QpState.INIT && to == QpState.RTR) {
            return INIT_TO_RTR;
        }
        if (from == QpState.RTR && to == QpState.RTS) {
            return RTR_TO_RTS;
        }
        throw new IllegalStateException("the transport never moves a queue pair from " + from + " to " + to);
    }

    /** True if send-queue work may be posted in {@code state} (ERR accepts it and flushes it). */
    public static boolean acceptsSends(QpState state) {
        return state == QpState.RTS || state == QpState.ERR;
    }

    /** True if receives may be posted in {@code state}. */
    public static boolean acceptsReceives(QpState state) {
        return state == QpState.INIT || state == QpState.RTR || state == QpState.RTS || state == QpState.ERR;
    }
}
