package org.objrdma.s3;

import java.io.IOException;
import java.io.OutputStream;

/** The answer to an {@link S3Request}: status and headers first, then at most one body. */
public interface S3Response {

    void status(int status);

    /** Sets (replaces) a header. */
    void header(String name, String value);

    /** Declares the body length; call before {@link #body()}. */
    void contentLength(long length);

    /** The body stream; status and headers are sent when it is first written or closed. */
    OutputStream body() throws IOException;
}
