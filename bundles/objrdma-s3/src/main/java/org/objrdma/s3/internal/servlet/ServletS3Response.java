package org.objrdma.s3.internal.servlet;

import java.io.IOException;
import java.io.OutputStream;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;
import org.objrdma.s3.S3Response;

/**
 * {@link S3Response} onto a servlet response; the container buffers at most its response buffer. An error
 * answered while the request body is still unread (a refused signature, a missing bucket) carries
 * {@code Connection: close}: Jetty then sends the answer and closes the connection, dropping whatever of the
 * body still arrives without a worker thread, instead of this thread reading a body nobody wants (a client
 * trickling one byte every ten seconds held a thread per connection that way).
 */
final class ServletS3Response implements S3Response {

    private final HttpServletResponse response;
    private final HttpServletRequest request;

    ServletS3Response(HttpServletResponse response, HttpServletRequest request) {
        this.response = response;
        this.request = request;
    }

    @Override
    public void status(int status) {
        if (!response.isCommitted()) {
            response.setStatus(status);
            if (status >= 400 && bodyLeftUnread(request)) {
                response.setHeader("Connection", "close");
            }
        }
    }

    /** Whether the request announced a body that has not been read to its end. */
    static boolean bodyLeftUnread(HttpServletRequest request) {
        boolean announced = request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
        if (!announced) {
            return false;
        }
        try {
            return !request.getInputStream().isFinished();
        } catch (IOException | IllegalStateException e) {
            // taken as a reader, or the connection already failed: nothing more will be read either way
            return true;
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
