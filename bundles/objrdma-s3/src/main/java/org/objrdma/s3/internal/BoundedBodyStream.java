package org.objrdma.s3.internal;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.objrdma.s3.S3BodyException;
import org.objrdma.s3.S3ErrorCode;

/**
 * A body of unknown length (plain {@code Transfer-Encoding: chunked}, no Content-Length) held to the
 * gateway's {@code max.put.bytes} while it streams: the read that would cross the limit fails with
 * {@link S3ErrorCode#ENTITY_TOO_LARGE} as an {@link S3BodyException}, so the store commits nothing and the
 * client gets EntityTooLarge. The limit is checked before the bytes are handed on, never after.
 */
final class BoundedBodyStream extends FilterInputStream {

    private final long limit;
    private long count;

    BoundedBodyStream(InputStream in, long limit) {
        super(in);
        this.limit = limit;
    }

    @Override
    public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
            add(1);
        }
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        if (n > 0) {
            add(n);
        }
        return n;
    }

    @Override
    public long skip(long n) throws IOException {
        long skipped = super.skip(n);
        if (skipped > 0) {
            add(skipped);
        }
        return skipped;
    }

    @Override
    public boolean markSupported() {
        return false;
    }

    private void add(long n) throws S3BodyException {
        count += n;
        if (count > limit) {
            throw new S3BodyException(S3ErrorCode.ENTITY_TOO_LARGE, "Your upload exceeds the maximum allowed size of "
                    + limit + " bytes");
        }
    }
}
