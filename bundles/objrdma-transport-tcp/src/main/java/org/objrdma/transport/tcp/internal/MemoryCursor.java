package org.objrdma.transport.tcp.internal;

import java.util.List;
import org.objrdma.api.transport.ScatterGatherEntry;

/**
 * A position in a list of memory pieces (a scatter-gather list, or one checked range of a region): where the
 * next payload byte is read from or written to. Used by one thread at a time.
 */
final class MemoryCursor {
    private final TcpRegion[] regions;
    /** The grant a remote range was checked against, whose lease is taken with the region's; else null. */
    private final TcpGrant grant;
    private final long[] offsets;
    private final long[] lengths;
    private int piece;
    private long intoPiece;
    private long remaining;

    private MemoryCursor(TcpRegion[] regions, TcpGrant grant, long[] offsets, long[] lengths) {
        this.regions = regions;
        this.grant = grant;
        this.offsets = offsets;
        this.lengths = lengths;
        long total = 0;
        for (long l : lengths) {
            total += l;
        }
        this.remaining = total;
        skipEmpty();
    }

    /** Over the entries of a local scatter-gather list (regions already checked to be ours). */
    static MemoryCursor over(List<ScatterGatherEntry> entries) {
        int n = entries.size();
        TcpRegion[] r = new TcpRegion[n];
        long[] o = new long[n];
        long[] l = new long[n];
        for (int i = 0; i < n; i++) {
            ScatterGatherEntry e = entries.get(i);
            r[i] = (TcpRegion) e.region();
            o[i] = e.offset();
            l[i] = e.length();
        }
        return new MemoryCursor(r, null, o, l);
    }

    /**
     * Over {@code length} bytes of {@code region} from {@code offset}, already checked against {@code grant}
     * (null for the deprecated whole-region path).
     */
    static MemoryCursor range(TcpRegion region, TcpGrant grant, long offset, long length) {
        return new MemoryCursor(new TcpRegion[] {region}, grant, new long[] {offset}, new long[] {length});
    }

    /** Takes the lease for the current piece: the grant's (which covers its region) or the region's. */
    boolean acquire() {
        return grant != null ? grant.acquire() : regions[piece].acquire();
    }

    /** Returns the lease {@link #acquire()} took. */
    void release() {
        if (grant != null) {
            grant.release();
        } else {
            regions[piece].release();
        }
    }

    long remaining() {
        return remaining;
    }

    /** Region of the current piece; only when {@link #remaining()} is positive. */
    TcpRegion region() {
        return regions[piece];
    }

    /** Offset in {@link #region()} of the next byte. */
    long regionOffset() {
        return offsets[piece] + intoPiece;
    }

    /** Bytes left in the current piece. */
    long pieceRemaining() {
        return lengths[piece] - intoPiece;
    }

    /** Moves {@code n} bytes on, at most {@link #pieceRemaining()}. */
    void advance(long n) {
        intoPiece += n;
        remaining -= n;
        skipEmpty();
    }

    private void skipEmpty() {
        while (piece < lengths.length && intoPiece == lengths[piece]) {
            piece++;
            intoPiece = 0;
        }
    }
}
