package org.objrdma.s3.xml;

import java.io.IOException;
import java.io.InputStream;
import org.objrdma.s3.CheckedBodyStream;
import org.objrdma.s3.S3BodyException;
import org.objrdma.s3.S3ErrorCode;
import org.objrdma.s3.S3Exception;

/**
 * An XML request body with its byte limit applied while it streams: one byte past the limit is
 * MaxMessageLengthExceeded. It also remembers the first S3 error the body raised (its own, or a payload hash
 * or chunk signature check below it), because the StAX reader wraps I/O failures in its own exception and the
 * client must get the S3 error, not MalformedXML.
 */
final class CappedBodyInputStream extends CheckedBodyStream {

    private S3BodyException failure;

    CappedBodyInputStream(InputStream in, long maxBytes) {
        super(in, maxBytes);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (failure != null) {
            throw failure;
        }
        try {
            return super.read(b, off, len);
        } catch (S3BodyException e) {
            failure = e;
            throw e;
        }
    }

    @Override
    protected IOException overLimit(long limit) {
        return new S3BodyException(S3ErrorCode.MAX_MESSAGE_LENGTH_EXCEEDED,
                "Your request was too big: an XML body may have at most " + limit + " bytes");
    }

    /**
     * Not passed on: the request body belongs to the HTTP server, and the StAX reader closes its source when
     * it is closed, which would leave the rest of the body unread and its checks not run.
     */
    @Override
    public void close() {
        // the body stays open
    }

    /** The S3 error the body raised, if any. */
    S3Exception failure() {
        return failure == null ? null : failure.s3();
    }

    /** Reads the rest to the end (trailing whitespace, and so the digest checks below run), still capped. */
    void readToEnd() throws IOException {
        byte[] sink = new byte[8192];
        while (read(sink, 0, sink.length) >= 0) {
            // dropped
        }
    }
}
