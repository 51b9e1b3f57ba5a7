package org.objrdma.verbs.internal.transport.dc;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.LockSupport;
import org.objrdma.verbs.internal.ffi.DataPath;
import org.objrdma.verbs.internal.ffi.DcQpModifier;
import org.objrdma.verbs.internal.ffi.DcSendQueue;
import org.objrdma.verbs.internal.ffi.IbvConstants;
import org.objrdma.verbs.internal.ffi.IbvLayouts;
import org.objrdma.verbs.internal.ffi.Mlx5DvLibrary;
import org.objrdma.verbs.internal.ffi.VerbsException;
import org.objrdma.verbs.internal.ffi.VerbsLibrary;

/**
 * One DC initiator queue pair with its own completion queue, used by one request at a time (the pool hands it out):
 * post, then poll the CQ for that request's completion. A request that fails or times out leaves the DCI in ERR;
 * {@link #recover()} drains it and brings it back to RTS, so a refused request never poisons the next one.
 */
final class Dci implements AutoCloseable {

    /** Retry policy of every DCI: as for RC (about 0.5 s per try, 7 tries; RNR retried without limit). */
    private static final int TIMEOUT = 14;
    private static final int RETRY_COUNT = 7;
    private static final int RNR_RETRY = 7;
    private static final int MAX_RD_ATOMIC = 16;

    private static final long WC_STATUS = IbvLayouts.offset(IbvLayouts.IBV_WC, "status");
    private static final long WC_WR_ID = IbvLayouts.offset(IbvLayouts.IBV_WC, "wr_id");

    private final VerbsLibrary library;
    private final DataPath dataPath;
    private final DcQpModifier modifier;
    private final DcPort port;
    private final MemorySegment cq;
    private final Mlx5DvLibrary.DcQp qp;
    private final DcSendQueue sendQueue;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment wc;
    private long nextWrId = 1;

    private Dci(VerbsLibrary library, DataPath dataPath, DcQpModifier modifier, DcPort port, MemorySegment cq,
            Mlx5DvLibrary.DcQp qp, DcSendQueue sendQueue) {
        this.library = library;
        this.dataPath = dataPath;
        this.modifier = modifier;
        this.port = port;
        this.cq = cq;
        this.qp = qp;
        this.sendQueue = sendQueue;
        this.wc = arena.allocate(IbvLayouts.IBV_WC);
    }

    /** Creates a DCI (and its CQ) on {@code ctx}/{@code pd} and brings it to RTS. */
    static Dci open(VerbsLibrary library, Mlx5DvLibrary mlx5, MemorySegment ctx, MemorySegment pd, DcPort port,
            int maxSge) throws VerbsException {
        MemorySegment cq = library.createCq(ctx, 2, MemorySegment.NULL);
        Mlx5DvLibrary.DcQp qp = null;
        try {
            qp = mlx5.createDci(ctx, pd, cq, 1, maxSge);
            DcQpModifier modifier = new DcQpModifier(library);
            int rc = modifier.dciToRts(qp.qp(), port.port(), port.pathMtu(), port.global(), port.sgidIndex(), TIMEOUT,
                    RETRY_COUNT, RNR_RETRY, MAX_RD_ATOMIC);
            if (rc != 0) {
                throw new VerbsException("ibv_modify_qp", rc, "DCI RESET→RTS");
            }
            return new Dci(library, library.dataPath(ctx), modifier, port, cq, qp, mlx5.sendQueue(qp));
        } catch (VerbsException | RuntimeException e) {
            if (qp != null) {
                library.destroyQp(qp.qp());
            }
            library.destroyCq(cq);
            throw e;
        }
    }

    int qpNum() {
        return qp.qpNum();
    }

    /**
     * Posts one signaled request and waits for its completion until {@code deadlineNanos} ({@link System#nanoTime}).
     * Returns the {@code ibv_wc_status} (0 = success), or -1 when the deadline passed (the DCI is then in ERR and
     * must be {@link #recover() recovered}).
     *
     * @throws VerbsException if the request could not be posted
     */
    int execute(MemorySegment ah, DcTargetAddress target, long dcKey, boolean write, long remoteAddress, int lkey,
            long localAddress, int length, long deadlineNanos) throws VerbsException {
        long wrId = nextWrId++;
        int rc = sendQueue.post(new DcSendQueue.Request(wrId, write, ah, target.dctn(), dcKey, target.rkey(),
                remoteAddress, lkey, localAddress, length));
        if (rc != 0) {
            throw new VerbsException("wr_complete", rc, write ? "DC WRITE" : "DC READ");
        }
        long park = 1_000;
        while (true) {
            int n = dataPath.pollCq(cq, 1, wc);
            if (n < 0) {
                throw new VerbsException("ibv_poll_cq", -n, "DCI " + qp.qpNum());
            }
            if (n == 1 && wc.get(JAVA_LONG, WC_WR_ID) == wrId) {
                return wc.get(JAVA_INT, WC_STATUS);
            }
            if (System.nanoTime() - deadlineNanos > 0) {
                return -1;
            }
            LockSupport.parkNanos(park);
            park = Math.min(park * 2, 200_000);
        }
    }

    /** After a failed or timed-out request: flush, empty the CQ, and bring the DCI back to RTS. 0 or an errno. */
    int recover() {
        modifier.toError(qp.qp());
        while (dataPath.pollCq(cq, 1, wc) > 0) {
            // flushed completions of the abandoned request
        }
        int rc = modifier.toReset(qp.qp());
        if (rc != 0) {
            return rc;
        }
        return modifier.dciToRts(qp.qp(), port.port(), port.pathMtu(), port.global(), port.sgidIndex(), TIMEOUT,
                RETRY_COUNT, RNR_RETRY, MAX_RD_ATOMIC);
    }

    @Override
    public void close() {
        library.destroyQp(qp.qp());
        library.destroyCq(cq);
        arena.close();
    }

    static boolean isSuccess(int status) {
        return status == IbvConstants.IBV_WC_SUCCESS;
    }
}
