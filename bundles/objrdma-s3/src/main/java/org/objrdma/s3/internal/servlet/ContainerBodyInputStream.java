package org.objrdma.s3.internal.servlet;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.objrdma.s3.S3BodyException;
import org.objrdma.s3.S3ErrorCode;

/**
 * The servlet container's request body, its unchecked read failures made S3 errors. Jetty 9.4 throws an
 * unchecked {@code BadMessageException} (408) from a read when the body arrives slower than the connector's
 * minimum request data rate ({@code etc/objrdma-jetty.xml}); unwrapped it would reach the gateway as a 500.
 * As an {@link S3BodyException} the store commits nothing and the client gets S3's {@code RequestTimeout}.
 */
final class ContainerBodyInputStream extends FilterInputStream {

    ContainerBodyInputStream(InputStream in) {
        super(in);
    }

    @Override
    public int read() throws IOException {
        try {
            return in.read();
        } catch (RuntimeException e) {
            throw refused(e);
        }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        try {
            return in.read(b, off, len);
        } catch (RuntimeException e) {
            throw refused(e);
        }
    }

    @Override
    public long skip(long n) throws IOException {
        try {
            return in.skip(n);
        } catch (RuntimeException e) {
            throw refused(e);
        }
    }

    @Override
    public int available() throws IOException {
        try {
            return in.available();
        } catch (RuntimeException e) {
            throw refused(e);
        }
    }

    private static S3BodyException refused(RuntimeException e) {
        String why = String.valueOf(e.getMessage());
        return why.contains("rate") || why.contains("408")
                ? new S3BodyException(S3ErrorCode.REQUEST_TIMEOUT, "Your socket connection to the server was not "
                        + "read from or written to within the timeout period (" + why + ")")
                : new S3BodyException(S3ErrorCode.INCOMPLETE_BODY, "The request body could not be read: " + why);
    }
}
