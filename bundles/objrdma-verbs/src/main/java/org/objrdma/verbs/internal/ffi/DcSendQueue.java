package org.objrdma.verbs.internal.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Posts one-sided DC requests on a DCI through the extended work-request API: {@code wr_start},
 * {@code wr_id}/{@code wr_flags}, {@code wr_rdma_write} or {@code wr_rdma_read}, {@code wr_set_dc_addr} (which
 * names the target's address handle, DCTN and DC key), {@code wr_set_sge}, {@code wr_complete}. The builders are
 * the function pointers of the queue pair's {@code ibv_qp_ex} / {@code mlx5dv_qp_ex}, read once here: the
 * provider sets them when the QP is created and never changes them.
 *
 * <p>Not thread-safe: a DCI's send queue is owned by one poster at a time (the builder keeps the open request in
 * the QP). Completions arrive on the DCI's CQ, polled as for RC ({@link DataPath}).
 */
public final class DcSendQueue {

    private static final Linker LINKER = Linker.nativeLinker();
    // generic handles: the function address is the first argument
    private static final MethodHandle VOID_QP = LINKER.downcallHandle(FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle INT_QP = LINKER.downcallHandle(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle RDMA = LINKER.downcallHandle(
            FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG));
    private static final MethodHandle SET_SGE = LINKER.downcallHandle(
            FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT, JAVA_LONG, JAVA_INT));
    private static final MethodHandle SET_DC_ADDR = LINKER.downcallHandle(
            FunctionDescriptor.ofVoid(ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG));

    private static long slot(String name) {
        return Mlx5DvLayouts.offset(Mlx5DvLayouts.IBV_QP_EX, name);
    }

    private static final long WR_ID = slot("wr_id");
    private static final long WR_FLAGS = slot("wr_flags");

    private final MemorySegment qpEx;
    private final MemorySegment mlx5QpEx;
    private final MemorySegment wrStart;
    private final MemorySegment wrComplete;
    private final MemorySegment wrAbort;
    private final MemorySegment wrRdmaWrite;
    private final MemorySegment wrRdmaRead;
    private final MemorySegment wrSetSge;
    private final MemorySegment wrSetDcAddr;

    DcSendQueue(MemorySegment qpEx, MemorySegment mlx5QpEx) {
        this.qpEx = qpEx;
        this.mlx5QpEx = mlx5QpEx;
        this.wrStart = required(qpEx, slot("wr_start"), "wr_start");
        this.wrComplete = required(qpEx, slot("wr_complete"), "wr_complete");
        this.wrAbort = required(qpEx, slot("wr_abort"), "wr_abort");
        this.wrRdmaWrite = required(qpEx, slot("wr_rdma_write"), "wr_rdma_write");
        this.wrRdmaRead = required(qpEx, slot("wr_rdma_read"), "wr_rdma_read");
        this.wrSetSge = required(qpEx, slot("wr_set_sge"), "wr_set_sge");
        this.wrSetDcAddr = required(mlx5QpEx, Mlx5DvLayouts.offset(Mlx5DvLayouts.MLX5DV_QP_EX, "wr_set_dc_addr"),
                "wr_set_dc_addr");
    }

    private static MemorySegment required(MemorySegment struct, long offset, String name) {
        MemorySegment fn = struct.get(ADDRESS, offset);
        if (fn.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("the provider left " + name + " unset on this queue pair");
        }
        return fn;
    }

    /** One request: the remote side (target and its memory) and the local side (one registered range). */
    public record Request(long wrId, boolean write, MemorySegment ah, int dctn, long dcKey, int rkey,
                          long remoteAddress, int lkey, long localAddress, int length) {
        @Override
        public String toString() {
            // never the DC key
            return (write ? "WRITE" : "READ") + " wr_id " + wrId + " dctn " + dctn + " rkey 0x"
                    + Integer.toHexString(rkey) + " raddr 0x" + Long.toHexString(remoteAddress) + " len " + length;
        }
    }

    /**
     * Posts {@code r}, signaled; returns 0 or the errno {@code wr_complete} gave (then nothing was posted).
     */
    public int post(Request r) {
        try {
            VOID_QP.invokeExact(wrStart, qpEx);
            qpEx.set(JAVA_LONG, WR_ID, r.wrId());
            qpEx.set(JAVA_INT, WR_FLAGS, IbvConstants.IBV_SEND_SIGNALED);
            MemorySegment opcode = r.write() ? wrRdmaWrite : wrRdmaRead;
            RDMA.invokeExact(opcode, qpEx, r.rkey(), r.remoteAddress());
            SET_DC_ADDR.invokeExact(wrSetDcAddr, mlx5QpEx, r.ah(), r.dctn(), r.dcKey());
            SET_SGE.invokeExact(wrSetSge, qpEx, r.lkey(), r.localAddress(), r.length());
            return (int) INT_QP.invokeExact(wrComplete, qpEx);
        } catch (Throwable t) {
            try {
                VOID_QP.invokeExact(wrAbort, qpEx);
            } catch (Throwable ignored) {
                // the original failure is what matters
            }
            if (t instanceof RuntimeException e) {
                throw e;
            }
            if (t instanceof Error e) {
                throw e;
            }
            throw new IllegalStateException(t);
        }
    }
}
