package org.objrdma.verbs.internal.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The data-path verbs of one device context. In C they are {@code static inline} functions that call
 * through {@code ibv_context.ops}; {@code dlsym} finds none of them, so the function pointers are read from
 * the ops table once per context and bound as downcall handles.
 *
 * <p>Return values are the driver's: 0 or an errno for the posts and {@code req_notify_cq}, the number of
 * completions (or a negative value on failure) for {@code poll_cq}.
 */
public final class DataPath {
    private static final Linker LINKER = Linker.nativeLinker();

    private static final FunctionDescriptor POST = FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS);
    private static final FunctionDescriptor POLL = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS);
    private static final FunctionDescriptor NOTIFY = FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT);

    /** Offsets of the four function pointers from the start of {@code struct ibv_context}. */
    public static final long POLL_CQ_OFFSET = IbvLayouts.offset(IbvLayouts.IBV_CONTEXT, "ops.poll_cq");
    public static final long REQ_NOTIFY_CQ_OFFSET = IbvLayouts.offset(IbvLayouts.IBV_CONTEXT, "ops.req_notify_cq");
    public static final long POST_SEND_OFFSET = IbvLayouts.offset(IbvLayouts.IBV_CONTEXT, "ops.post_send");
    public static final long POST_RECV_OFFSET = IbvLayouts.offset(IbvLayouts.IBV_CONTEXT, "ops.post_recv");

    private final MethodHandle postSend;
    private final MethodHandle postRecv;
    private final MethodHandle pollCq;
    private final MethodHandle reqNotifyCq;

    private DataPath(MethodHandle postSend, MethodHandle postRecv, MethodHandle pollCq, MethodHandle reqNotifyCq) {
        this.postSend = postSend;
        this.postRecv = postRecv;
        this.pollCq = pollCq;
        this.reqNotifyCq = reqNotifyCq;
    }

    /**
     * Reads the ops table of {@code ctx}.
     *
     * @throws IllegalStateException if the driver left one of the four slots empty
     */
    static DataPath of(MemorySegment ctx) {
        MemorySegment c = ctx.reinterpret(IbvLayouts.IBV_CONTEXT.byteSize());
        return new DataPath(bind(c, POST_SEND_OFFSET, "post_send", POST), bind(c, POST_RECV_OFFSET, "post_recv", POST),
                bind(c, POLL_CQ_OFFSET, "poll_cq", POLL), bind(c, REQ_NOTIFY_CQ_OFFSET, "req_notify_cq", NOTIFY));
    }

    private static MethodHandle bind(MemorySegment ctx, long offset, String name, FunctionDescriptor fd) {
        MemorySegment fn = ctx.get(ADDRESS, offset);
        if (fn.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("the driver's ibv_context.ops." + name + " is NULL");
        }
        return LINKER.downcallHandle(fn, fd);
    }

    /** {@code ibv_post_send(qp, wr, bad_wr)}: 0, or an errno with {@code *bad_wr} naming the first WR not posted. */
    public int postSend(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        try {
            return (int) postSend.invokeExact(qp, wr, badWr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_post_recv(qp, wr, bad_wr)}. */
    public int postRecv(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        try {
            return (int) postRecv.invokeExact(qp, wr, badWr);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_poll_cq(cq, n, wc)}: completions written, or negative on failure. */
    public int pollCq(MemorySegment cq, int n, MemorySegment wc) {
        try {
            return (int) pollCq.invokeExact(cq, n, wc);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_req_notify_cq(cq, solicited_only)}: arms the CQ's completion channel for one event. */
    public int reqNotifyCq(MemorySegment cq, boolean solicitedOnly) {
        try {
            return (int) reqNotifyCq.invokeExact(cq, solicitedOnly ? 1 : 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
