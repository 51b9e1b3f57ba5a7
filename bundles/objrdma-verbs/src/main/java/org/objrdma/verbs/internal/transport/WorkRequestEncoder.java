package org.objrdma.verbs.internal.transport;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import java.util.List;
import org.objrdma.api.transport.ScatterGatherEntry;
import org.objrdma.api.transport.WorkRequest;
import org.objrdma.verbs.internal.ffi.DataPath;
import org.objrdma.verbs.internal.ffi.IbvConstants;
import org.objrdma.verbs.internal.ffi.IbvLayouts;

/**
 * Work-request encoding of one queue pair: the native {@code ibv_send_wr}, {@code ibv_recv_wr} and
 * {@code ibv_sge} arrays (one entry per queue slot, so a whole batch posts as one chain), written in place for
 * every request — nothing is allocated per operation — and posted from there. The arrays live in the channel's
 * arena and die with it.
 *
 * <p>The device sees a sequence number as the work-request id, never the caller's id ({@link #RECV_BIT} set
 * for receives, so one completion queue can serve both queues); {@link SlotRing} maps it back.
 *
 * <p>Not thread-safe: the channel writes and posts under its post lock.
 */
final class WorkRequestEncoder {
    /** Set in the native id of a receive. */
    static final long RECV_BIT = 1L << 63;

    private static final long SEND_WR_SIZE = IbvLayouts.IBV_SEND_WR.byteSize();
    private static final long WR_ID = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "wr_id");
    private static final long WR_NEXT = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "next");
    private static final long WR_SG_LIST = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "sg_list");
    private static final long WR_NUM_SGE = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "num_sge");
    private static final long WR_OPCODE = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "opcode");
    private static final long WR_SEND_FLAGS = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "send_flags");
    private static final long WR_IMM_DATA = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "imm_data");
    private static final long WR_REMOTE_ADDR = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "wr.rdma.remote_addr");
    private static final long WR_RKEY = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "wr.rdma.rkey");
    private static final long WR_INVALIDATE_RKEY = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "invalidate_rkey");
    private static final long WR_BIND_MW = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "bind_mw.mw");
    private static final long WR_BIND_RKEY = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "bind_mw.rkey");
    private static final long WR_BIND_MR = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "bind_mw.bind_info.mr");
    private static final long WR_BIND_ADDR = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "bind_mw.bind_info.addr");
    private static final long WR_BIND_LENGTH = IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "bind_mw.bind_info.length");
    private static final long WR_BIND_ACCESS =
            IbvLayouts.offset(IbvLayouts.IBV_SEND_WR, "bind_mw.bind_info.mw_access_flags");

    private static final long RECV_WR_SIZE = IbvLayouts.IBV_RECV_WR.byteSize();
    private static final long RWR_ID = IbvLayouts.offset(IbvLayouts.IBV_RECV_WR, "wr_id");
    private static final long RWR_NEXT = IbvLayouts.offset(IbvLayouts.IBV_RECV_WR, "next");
    private static final long RWR_SG_LIST = IbvLayouts.offset(IbvLayouts.IBV_RECV_WR, "sg_list");
    private static final long RWR_NUM_SGE = IbvLayouts.offset(IbvLayouts.IBV_RECV_WR, "num_sge");

    private static final long SGE_SIZE = IbvLayouts.IBV_SGE.byteSize();
    private static final long SGE_ADDR = IbvLayouts.offset(IbvLayouts.IBV_SGE, "addr");
    private static final long SGE_LENGTH = IbvLayouts.offset(IbvLayouts.IBV_SGE, "length");
    private static final long SGE_LKEY = IbvLayouts.offset(IbvLayouts.IBV_SGE, "lkey");

    private final DataPath dataPath;
    private final MemorySegment qp;
    private final int maxSge;
    private final MemorySegment sendWrs;
    private final MemorySegment sendSges;
    private final MemorySegment badSendWr;
    private final MemorySegment recvWrs;
    private final MemorySegment recvSges;
    private final MemorySegment badRecvWr;

    WorkRequestEncoder(Arena arena, DataPath dataPath, MemorySegment qp, int maxSge, int sendDepth, int recvDepth) {
        this.dataPath = dataPath;
        this.qp = qp;
        this.maxSge = maxSge;
        this.sendWrs = arena.allocate(SEND_WR_SIZE * sendDepth, 8);
        this.sendSges = arena.allocate(SGE_SIZE * sendDepth * maxSge, 8);
        this.badSendWr = arena.allocate(8, 8);
        this.recvWrs = arena.allocate(RECV_WR_SIZE * recvDepth, 8);
        this.recvSges = arena.allocate(SGE_SIZE * recvDepth * maxSge, 8);
        this.badRecvWr = arena.allocate(8, 8);
    }

    /**
     * Writes send WR {@code k} (and its SGEs) for request {@code r} with native id {@code seq}; {@code chained}:
     * WR {@code k + 1} follows it in the same post.
     */
    void writeSend(int k, long seq, WorkRequest r, boolean signaled, boolean chained) {
        long wr = k * SEND_WR_SIZE;
        long sgeBase = (long) k * maxSge * SGE_SIZE;
        int n = writeSges(sendSges, sgeBase, r.sgList());
        MemorySegment w = sendWrs;
        // pointers are written as 64-bit integers: no MemorySegment per pointer (8-byte pointers are checked at activation)
        w.set(JAVA_LONG, wr + WR_ID, seq);
        w.set(JAVA_LONG, wr + WR_NEXT, chained ? sendWrs.address() + (k + 1) * SEND_WR_SIZE : 0);
        w.set(JAVA_LONG, wr + WR_SG_LIST, n == 0 ? 0 : sendSges.address() + sgeBase);
        w.set(JAVA_INT, wr + WR_NUM_SGE, n);
        w.set(JAVA_INT, wr + WR_OPCODE, r.opcode().verbsOpcode());
        w.set(JAVA_INT, wr + WR_SEND_FLAGS, signaled ? IbvConstants.IBV_SEND_SIGNALED : 0);
        // imm_data is __be32: the value the caller gave travels in network order and comes back unchanged
        w.set(JAVA_INT, wr + WR_IMM_DATA, r.opcode().hasImmediate() ? toNetworkOrder(r.immediate()) : 0);
        w.set(JAVA_LONG, wr + WR_REMOTE_ADDR, r.remoteAddress());
        w.set(JAVA_INT, wr + WR_RKEY, r.rkey());
    }

    /** Writes receive WR {@code k} (and its SGEs); {@code chained} as for {@link #writeSend}. */
    void writeRecv(int k, long seq, WorkRequest r, boolean chained) {
        long wr = k * RECV_WR_SIZE;
        long sgeBase = (long) k * maxSge * SGE_SIZE;
        int n = writeSges(recvSges, sgeBase, r.sgList());
        MemorySegment w = recvWrs;
        w.set(JAVA_LONG, wr + RWR_ID, seq | RECV_BIT);
        w.set(JAVA_LONG, wr + RWR_NEXT, chained ? recvWrs.address() + (k + 1) * RECV_WR_SIZE : 0);
        w.set(JAVA_LONG, wr + RWR_SG_LIST, n == 0 ? 0 : recvSges.address() + sgeBase);
        w.set(JAVA_INT, wr + RWR_NUM_SGE, n);
    }

    /** Writes send WR 0 as {@code work}: a signaled memory-window bind or local invalidate. */
    void writeWindowWork(long seq, WindowWork work) {
        MemorySegment w = sendWrs;
        w.set(JAVA_LONG, WR_ID, seq);
        w.set(JAVA_LONG, WR_NEXT, 0);
        w.set(JAVA_LONG, WR_SG_LIST, 0);
        w.set(JAVA_INT, WR_NUM_SGE, 0);
        w.set(JAVA_INT, WR_SEND_FLAGS, IbvConstants.IBV_SEND_SIGNALED);
        if (work.mw() == null) {
            w.set(JAVA_INT, WR_OPCODE, IbvConstants.IBV_WR_LOCAL_INV);
            w.set(JAVA_INT, WR_INVALIDATE_RKEY, work.rkey());
        } else {
            w.set(JAVA_INT, WR_OPCODE, IbvConstants.IBV_WR_BIND_MW);
            w.set(JAVA_INT, WR_IMM_DATA, 0);
            w.set(JAVA_LONG, WR_BIND_MW, work.mw().address());
            w.set(JAVA_INT, WR_BIND_RKEY, work.rkey());
            w.set(JAVA_LONG, WR_BIND_MR, work.mr().address());
            w.set(JAVA_LONG, WR_BIND_ADDR, work.address());
            w.set(JAVA_LONG, WR_BIND_LENGTH, work.length());
            w.set(JAVA_INT, WR_BIND_ACCESS, work.access());
        }
    }

    /** {@code ibv_post_send} of the chain starting at send WR 0; 0 or an errno. */
    int postSends() {
        return dataPath.postSend(qp, sendWrs, badSendWr);
    }

    /** {@code ibv_post_recv} of the chain starting at receive WR 0; 0 or an errno. */
    int postRecvs() {
        return dataPath.postRecv(qp, recvWrs, badRecvWr);
    }

    /** After a refused {@link #postSends} of {@code count} WRs: how many the device took (those before bad_wr). */
    int sendsAccepted(int count) {
        return failedIndex(badSendWr, sendWrs, SEND_WR_SIZE, count);
    }

    /** After a refused {@link #postRecvs} of {@code count} WRs: how many the device took. */
    int recvsAccepted(int count) {
        return failedIndex(badRecvWr, recvWrs, RECV_WR_SIZE, count);
    }

    /** imm_data as the wire carries it (big-endian) from the host's order, and back (the swap is its own inverse). */
    static int toNetworkOrder(int v) {
        return ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? Integer.reverseBytes(v) : v;
    }

    private static int writeSges(MemorySegment sges, long base, List<ScatterGatherEntry> entries) {
        int n = entries.size();
        for (int i = 0; i < n; i++) {
            ScatterGatherEntry e = entries.get(i);
            long s = base + i * SGE_SIZE;
            sges.set(JAVA_LONG, s + SGE_ADDR, e.address());
            sges.set(JAVA_INT, s + SGE_LENGTH, e.length());
            sges.set(JAVA_INT, s + SGE_LKEY, e.lkey());
        }
        return n;
    }

    /** Index of the WR {@code *bad_wr} points at within a chain starting at {@code chain}. */
    private static int failedIndex(MemorySegment badWr, MemorySegment chain, long wrSize, int count) {
        long bad = badWr.get(JAVA_LONG, 0);
        long k = (bad - chain.address()) / wrSize;
        return k < 0 || k > count ? 0 : (int) k;
    }
}
