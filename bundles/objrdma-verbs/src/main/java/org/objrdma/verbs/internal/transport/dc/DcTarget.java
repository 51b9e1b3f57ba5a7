package org.objrdma.verbs.internal.transport.dc;

import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import java.util.Objects;
import org.objrdma.api.transport.Gid;
import org.objrdma.verbs.internal.ffi.DcQpModifier;
import org.objrdma.verbs.internal.ffi.IbvConstants;
import org.objrdma.verbs.internal.ffi.Mlx5DvLibrary;
import org.objrdma.verbs.internal.ffi.VerbsException;
import org.objrdma.verbs.internal.ffi.VerbsLibrary;

/**
 * The client side of cuObject over DC: one DC target (with the SRQ and CQ a DCT needs) keyed by a DC key, and a
 * client buffer registered for remote read and write, described in NVIDIA's 81-character descriptor. A server's DCI
 * holding the same key reaches exactly this buffer with its rkey; with another key its requests complete with an
 * access error at the server and nothing here is touched.
 *
 * <p>Owns everything it creates; {@link #close()} destroys it in reverse order (MR, DCT, SRQ, CQ).
 */
public final class DcTarget implements AutoCloseable {

    private static final int ACCESS = IbvConstants.IBV_ACCESS_LOCAL_WRITE | IbvConstants.IBV_ACCESS_REMOTE_WRITE
            | IbvConstants.IBV_ACCESS_REMOTE_READ;
    /** The RNR timer a DCT answers with (rdma-core's encoding 12 = 0.64 ms). */
    private static final int MIN_RNR_TIMER = 12;

    private final VerbsLibrary library;
    private final Mlx5DvLibrary mlx5;
    private final MemorySegment cq;
    private final MemorySegment srq;
    private final Mlx5DvLibrary.DcQp dct;
    private final VerbsLibrary.RegisteredMemory mr;
    private final int lid;
    private final Gid gid;
    private boolean closed;

    private DcTarget(VerbsLibrary library, Mlx5DvLibrary mlx5, MemorySegment cq, MemorySegment srq,
            Mlx5DvLibrary.DcQp dct, VerbsLibrary.RegisteredMemory mr, int lid, Gid gid) {
        this.library = library;
        this.mlx5 = mlx5;
        this.cq = cq;
        this.srq = srq;
        this.dct = dct;
        this.mr = mr;
        this.lid = lid;
        this.gid = gid;
    }

    /**
     * Creates the target on {@code ctx}/{@code pd} at {@code port} and registers {@code buffer}.
     *
     * @param lid   the port's LID (InfiniBand), 0 on RoCE
     * @param gid   the port's GID at {@code port.sgidIndex()}, printed in the descriptor
     * @param dcKey the key initiators must present
     * @throws VerbsException if the device refuses an object (everything created so far is destroyed)
     */
    public static DcTarget open(VerbsLibrary library, Mlx5DvLibrary mlx5, MemorySegment ctx, MemorySegment pd,
            DcPort port, int lid, Gid gid, MemorySegment buffer, long dcKey) throws VerbsException {
        Objects.requireNonNull(gid, "gid");
        if (buffer.byteSize() == 0 || buffer.byteSize() > 0xFFFF_FFFEL) {
            throw new IllegalArgumentException("a descriptor describes 1..2^32 - 2 bytes, the buffer has "
                    + buffer.byteSize());
        }
        MemorySegment cq = library.createCq(ctx, 1, MemorySegment.NULL);
        MemorySegment srq = null;
        Mlx5DvLibrary.DcQp dct = null;
        try {
            srq = mlx5.createSrq(pd, 1, 1);
            dct = mlx5.createDct(ctx, pd, cq, srq, dcKey);
            int rc = new DcQpModifier(library).dctToRtr(dct.qp(), port.port(),
                    port.pathMtu(), port.global(), port.sgidIndex(), ACCESS, MIN_RNR_TIMER);
            if (rc != 0) {
                throw new VerbsException("ibv_modify_qp", rc, "DCT RESET→RTR");
            }
            VerbsLibrary.RegisteredMemory mr = library.regMr(pd, buffer, ACCESS);
            return new DcTarget(library, mlx5, cq, srq, dct, mr, lid, gid);
        } catch (VerbsException | RuntimeException e) {
            if (dct != null) {
                library.destroyQp(dct.qp());
            }
            if (srq != null) {
                mlx5.destroySrq(srq);
            }
            library.destroyCq(cq);
            throw e;
        }
    }

    /** The DC target number initiators address. */
    public int dctn() {
        return dct.qpNum();
    }

    /** The buffer's remote key. */
    public int rkey() {
        return mr.rkey();
    }

    /** The buffer's address as registered (the descriptor's raddr). */
    public long address() {
        return mr.address();
    }

    /** The registered size. */
    public long size() {
        return mr.length();
    }

    /**
     * The descriptor of the whole buffer in NVIDIA's format: {@code raddr:rsize:rkey:lid:dctn:1:gid}, lower-case
     * hex of 16, 8, 8, 4, 6, 1 and 32 digits (81 characters).
     */
    public String descriptor() {
        return format(address(), size(), rkey(), lid, dctn(), gid);
    }

    /** The descriptor format, for any region of a DC target. */
    public static String format(long raddr, long rsize, int rkey, int lid, int dctn, Gid gid) {
        return String.format("%016x:%08x:%08x:%04x:%06x:1:%s", raddr, rsize, rkey, lid, dctn,
                HexFormat.of().formatHex(gid.toBytes()));
    }

    /** Destroys the MR, DCT, SRQ and CQ. Idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        library.deregMr(mr.mr());
        library.destroyQp(dct.qp());
        mlx5.destroySrq(srq);
        library.destroyCq(cq);
    }
}
