package org.objrdma.s3.internal;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.objrdma.s3.S3BodyException;
import org.objrdma.s3.S3ErrorCode;

/**
 * A body of unknown length (plain {@code Transfer-Encoding: chunked}, no Content-Length; a browser POST's file)
 * held to a maximum (the gateway's {@code max.put.bytes}, a POST policy's content-length-range) while it
 * streams: the read that would cross the limit fails with {@link S3ErrorCode#ENTITY_TOO_LARGE} as an
 * {@link S3BodyException}, so the store commits nothing and the client gets EntityTooLarge. The limit is
 * checked before the bytes are handed on, never after. A minimum is checked at the end of the body: the read
 * that would report the end of a shorter body fails with {@link S3ErrorCode#ENTITY_TOO_SMALL}.
 */
final class BoundedBodyStream extends FilterInputStream {

    private final long minimum;
    private final long limit;
    private long count;

    BoundedBodyStream(InputStream in, long limit) {
        this(in, 0, limit);
    }

    BoundedBodyStream(InputStream in, long minimum, long limit) {
        super(in);
        this.minimum = minimum;
        this.limit = limit;
    }

    @Override
    public int read() throws IOException {
        int b = super.read();
        if (b >= 0) {
            add(1);
        } else {
            atEnd();
        }
        return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        int n = super.read(b, off, len);
        if (n > 0) {
            add(n);
        } else if (n < 0) {
            atEnd();
        }
        return n;
    }

    private void atEnd() throws S3BodyException {
        if (count < minimum) {
            throw new S3BodyException(S3ErrorCode.ENTITY_TOO_SMALL, "Your upload of " + count
                    + " bytes is smaller than the minimum allowed size of " + minimum + " bytes");
        }
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
