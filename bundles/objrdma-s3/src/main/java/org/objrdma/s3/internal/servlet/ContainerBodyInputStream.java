package org.objrdma.s3.internal.servlet;

import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.objrdma.s3.CheckedBodyStream;
import org.objrdma.s3.S3BodyException;
import org.objrdma.s3.S3ErrorCode;

/**
 * The servlet container's request body with two things added: its unchecked read failures become S3 errors
 * (unwrapped they would reach the gateway as a 500), and a minimum data rate after a grace period.
 *
 * <p>The rate: once {@value #GRACE_SECONDS} s have passed since the first read, a body whose bytes so far are
 * fewer than {@value #MIN_BYTES_PER_SECOND} per second of the time past the grace is cut with S3's
 * {@code RequestTimeout} (a {@link S3BodyException}, so the store commits nothing). A client, signed or not,
 * then cannot hold a worker thread by trickling a body. Jetty 9.4's own {@code minRequestDataRate} is not used
 * ({@code etc/objrdma-jetty.xml} sets it to 0): it measures from the first byte on every read with no grace, so a
 * small chunked body whose end arrives a few milliseconds after its first byte is already "too slow" (a 1-byte
 * chunked PUT failed that way). A client that sends nothing at all is Jetty's idle timeout's.
 */
final class ContainerBodyInputStream extends CheckedBodyStream {

    static final long MIN_BYTES_PER_SECOND = 1024;
    static final long GRACE_SECONDS = 10;

    private final LongSupplier nanoClock;
    private long firstRead = Long.MIN_VALUE;

    ContainerBodyInputStream(InputStream in) {
        this(in, System::nanoTime);
    }

    ContainerBodyInputStream(InputStream in, LongSupplier nanoClock) {
        super(in, Long.MAX_VALUE);
        this.nanoClock = nanoClock;
    }

    @Override
    protected int readBelow(byte[] b, int off, int len) throws IOException {
        started();
        try {
            return in.read(b, off, len);
        } catch (RuntimeException e) {
            throw refused(e);
        }
    }

    @Override
    protected void onBytes(byte[] b, int off, int n) throws S3BodyException {
        // counted by the base already: check the rate after the read (a read that waited is judged once done)
        long received = count();
        long pastGrace = nanoClock.getAsLong() - firstRead - TimeUnit.SECONDS.toNanos(GRACE_SECONDS);
        if (pastGrace > 0 && received < MIN_BYTES_PER_SECOND * TimeUnit.NANOSECONDS.toMillis(pastGrace) / 1000) {
            throw new S3BodyException(S3ErrorCode.REQUEST_TIMEOUT, "Your socket connection to the server was not "
                    + "read from or written to within the timeout period (the body arrived slower than "
                    + MIN_BYTES_PER_SECOND + " bytes/s after " + GRACE_SECONDS + " s: " + received + " bytes)");
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

    private void started() {
        if (firstRead == Long.MIN_VALUE) {
            firstRead = nanoClock.getAsLong();
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
