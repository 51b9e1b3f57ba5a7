package org.objrdma.s3;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * A request body passed through while every byte it hands on is counted and shown to a check, and its end to
 * another: the body wrappers of the gateway (size limits, payload digests, the container's data rate) are this
 * with their own checks. A check that throws — an {@link S3BodyException} as a rule — stops the body there, so a
 * store that commits at end of stream commits nothing.
 *
 * <p>What every such wrapper needs the same way, and so is done here once: single-byte reads and skips go through
 * the same checks as array reads (a skip reads and drops, so no byte escapes a limit or a digest); with a limit,
 * a read asks the stream below for at most one byte past it (enough to know it was crossed) and fails with
 * {@link #overLimit}; marks are not supported.
 */
public abstract class CheckedBodyStream extends FilterInputStream {

    private final long limit;
    private long count;

    /**
     * @param in    the body
     * @param limit most bytes the body may have ({@link Long#MAX_VALUE}: none)
     */
    protected CheckedBodyStream(InputStream in, long limit) {
        super(in);
        this.limit = limit;
    }

    @Override
    public final int read() throws IOException {
        byte[] one = new byte[1];
        int n;
        do {
            n = read(one, 0, 1);
        } while (n == 0);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (count > limit) {
            throw overLimit(limit);
        }
        long room = limit - count;
        int n = readBelow(b, off, room >= len ? len : (int) room + 1);
        if (n > 0) {
            count += n;
            if (count > limit) {
                throw overLimit(limit);
            }
            onBytes(b, off, n);
        } else if (n < 0) {
            onEnd(count);
        }
        return n;
    }

    @Override
    public final long skip(long n) throws IOException {
        if (n <= 0) {
            return 0;
        }
        byte[] sink = new byte[(int) Math.min(8192, n)];
        return Math.max(0, read(sink, 0, sink.length));
    }

    @Override
    public final boolean markSupported() {
        return false;
    }

    /** Bytes handed on so far. */
    protected final long count() {
        return count;
    }

    /** One read of the stream below; a wrapper that translates the container's failures overrides it. */
    protected int readBelow(byte[] b, int off, int len) throws IOException {
        return in.read(b, off, len);
    }

    /** Sees {@code n} bytes about to be handed on (already counted, within the limit); may throw to stop the body. */
    protected void onBytes(byte[] b, int off, int n) throws IOException {
    }

    /** Sees the end of the body after {@code total} bytes, before the end is reported; may throw instead. */
    protected void onEnd(long total) throws IOException {
    }

    /** The failure of a body longer than {@code limit}; only called when a limit was given. */
    protected IOException overLimit(long limit) {
        return new S3BodyException(S3ErrorCode.ENTITY_TOO_LARGE, "Your upload exceeds the maximum allowed size of "
                + limit + " bytes");
    }
}
