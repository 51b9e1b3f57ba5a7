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
    /** The memory-window verbs, also inline through ops; a driver without windows may leave them NULL. */
    public static final long ALLOC_MW_OFFSET = IbvLayouts.offset(IbvLayouts.IBV_CONTEXT, "ops.alloc_mw");
    public static final long DEALLOC_MW_OFFSET = IbvLayouts.offset(IbvLayouts.IBV_CONTEXT, "ops.dealloc_mw");
    private static final long MW_RKEY = IbvLayouts.offset(IbvLayouts.IBV_MW, "rkey");

    private static final FunctionDescriptor ALLOC_MW = FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT);
    private static final FunctionDescriptor DEALLOC_MW = FunctionDescriptor.of(JAVA_INT, ADDRESS);

    private final MethodHandle postSend;
    private final MethodHandle postRecv;
    private final MethodHandle pollCq;
    private final MethodHandle reqNotifyCq;
    /** Null when the driver has no memory windows. */
    private final MethodHandle allocMw;
    private final MethodHandle deallocMw;

    private DataPath(MethodHandle postSend, MethodHandle postRecv, MethodHandle pollCq, MethodHandle reqNotifyCq,
                     MethodHandle allocMw, MethodHandle deallocMw) {
        this.postSend = postSend;
        this.postRecv = postRecv;
        this.pollCq = pollCq;
        this.reqNotifyCq = reqNotifyCq;
        this.allocMw = allocMw;
        this.deallocMw = deallocMw;
    }

    /**
     * Reads the ops table of {@code ctx}.
     *
     * @throws IllegalStateException if the driver left one of the four slots empty
     */
    static DataPath of(MemorySegment ctx) {
        MemorySegment c = ctx.reinterpret(IbvLayouts.IBV_CONTEXT.byteSize());
        MethodHandle alloc = bindOptional(c, ALLOC_MW_OFFSET, ALLOC_MW);
        MethodHandle dealloc = bindOptional(c, DEALLOC_MW_OFFSET, DEALLOC_MW);
        boolean windows = alloc != null && dealloc != null;
        return new DataPath(bind(c, POST_SEND_OFFSET, "post_send", POST), bind(c, POST_RECV_OFFSET, "post_recv", POST),
                bind(c, POLL_CQ_OFFSET, "poll_cq", POLL), bind(c, REQ_NOTIFY_CQ_OFFSET, "req_notify_cq", NOTIFY),
                windows ? alloc : null, windows ? dealloc : null);
    }

    private static MethodHandle bindOptional(MemorySegment ctx, long offset, FunctionDescriptor fd) {
        MemorySegment fn = ctx.get(ADDRESS, offset);
        return fn.equals(MemorySegment.NULL) ? null : LINKER.downcallHandle(fn, fd);
    }

    /** True if the driver fills {@code ops.alloc_mw} and {@code ops.dealloc_mw}. */
    public boolean hasMemoryWindows() {
        return allocMw != null;
    }

    /**
     * {@code ibv_alloc_mw(pd, type)}: the window ({@code struct ibv_mw}, sized), or {@link MemorySegment#NULL}
     * when the driver refuses (or has no windows at all).
     */
    public MemorySegment allocMw(MemorySegment pd, int type) {
        if (allocMw == null) {
            return MemorySegment.NULL;
        }
        try {
            MemorySegment mw = (MemorySegment) allocMw.invokeExact(pd, type);
            return mw.equals(MemorySegment.NULL) ? mw : mw.reinterpret(IbvLayouts.IBV_MW.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code ibv_dealloc_mw(mw)}: 0 or an errno. Invalidates a bound window. */
    public int deallocMw(MemorySegment mw) {
        try {
            return (int) deallocMw.invokeExact(mw);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** The window's current rkey as the driver keeps it in {@code ibv_mw.rkey}. */
    public static int mwRkey(MemorySegment mw) {
        return mw.get(JAVA_INT, MW_RKEY);
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
