package org.objrdma.s3.internal.servlet;

import java.io.IOException;
import java.io.OutputStream;
import javax.servlet.http.HttpServletResponse;
import org.objrdma.s3.S3Response;

/** {@link S3Response} onto a servlet response; the container buffers at most its response buffer. */
final class ServletS3Response implements S3Response {

    private final HttpServletResponse response;

    ServletS3Response(HttpServletResponse response) {
        this.response = response;
    }

    @Override
    public void status(int status) {
        if (!response.isCommitted()) {
            response.setStatus(status);
        }
    }

    @Override
    public void header(String name, String value) {
        if (!response.isCommitted()) {
            response.setHeader(name, HeaderBytes.forWire(value));
        }
    }

    @Override
    public void contentLength(long length) {
        if (!response.isCommitted()) {
            response.setContentLengthLong(length);
        }
    }

    @Override
    public OutputStream body() throws IOException {
        return response.getOutputStream();
    }
}
