package org.objrdma.s3.internal;

import java.io.InputStream;
import org.objrdma.s3.CheckedBodyStream;
import org.objrdma.s3.S3BodyException;
import org.objrdma.s3.S3ErrorCode;

/**
 * A body of unknown length (plain {@code Transfer-Encoding: chunked}, no Content-Length; a browser POST's file)
 * held to a maximum (the gateway's {@code max.put.bytes}, a POST policy's content-length-range) while it
 * streams: the read that would cross the limit fails with {@link S3ErrorCode#ENTITY_TOO_LARGE} as an
 * {@link S3BodyException}, so the store commits nothing and the client gets EntityTooLarge. The limit is
 * checked before the bytes are handed on, never after ({@link CheckedBodyStream}). A minimum is checked at the end of the body: the read
 * that would report the end of a shorter body fails with {@link S3ErrorCode#ENTITY_TOO_SMALL}.
 */
final class BoundedBodyStream extends CheckedBodyStream {

    private final long minimum;

    BoundedBodyStream(InputStream in, long limit) {
        this(in, 0, limit);
    }

    BoundedBodyStream(InputStream in, long minimum, long limit) {
        super(in, limit);
        this.minimum = minimum;
    }

    @Override
    protected void onEnd(long total) throws S3BodyException {
        if (total < minimum) {
            throw new S3BodyException(S3ErrorCode.ENTITY_TOO_SMALL, "Your upload of " + total
                    + " bytes is smaller than the minimum allowed size of " + minimum + " bytes");
        }
    }
}
