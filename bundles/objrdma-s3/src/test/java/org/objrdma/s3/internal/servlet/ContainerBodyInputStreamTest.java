package org.objrdma.s3.internal.servlet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.objrdma.s3.S3BodyException;
import org.objrdma.s3.S3ErrorCode;

class ContainerBodyInputStreamTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    /** A body whose every read first moves the fake clock on by {@code stepMillis}. */
    private InputStream body(byte[] bytes, long stepMillis) {
        InputStream slow = new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                now.addAndGet(TimeUnit.MILLISECONDS.toNanos(stepMillis));
                return super.read(b, off, Math.min(len, 1));
            }
        };
        return new ContainerBodyInputStream(slow, now::get);
    }

    @Test
    void aSmallBodyWhoseEndComesLateIsNotCut() throws IOException {
        // the case Jetty's own minRequestDataRate got wrong: 1 byte, then its end a while later
        InputStream in = body(new byte[] {42}, 3_000);
        assertArrayEquals(new byte[] {42}, in.readAllBytes());
    }

    @Test
    void aBodyTricklingPastTheGraceIsRequestTimeout() throws IOException {
        InputStream in = body(new byte[64], 1_000); // one byte a second
        byte[] one = new byte[1];
        int read = 0;
        S3BodyException cut = null;
        try {
            while (in.read(one, 0, 1) > 0) {
                read++;
            }
        } catch (S3BodyException e) {
            cut = e;
        }
        assertTrue(cut != null, "a 1 byte/s body was read to its end");
        assertEquals(S3ErrorCode.REQUEST_TIMEOUT.code(), cut.s3().code());
        // the first read starts the clock, the grace is 10 s and 11 bytes in 11 s are below 1024/s past it
        assertTrue(read >= ContainerBodyInputStream.GRACE_SECONDS && read <= ContainerBodyInputStream.GRACE_SECONDS + 2,
                "cut after " + read + " bytes");
    }

    @Test
    void aSlowButSteadyBodyAboveTheRateIsReadWhole() throws IOException {
        // 30 s at 2 bytes per ms (2000 bytes/s): slow, but above 1024 bytes/s past the grace
        byte[] bytes = new byte[60_000];
        InputStream slow = new ByteArrayInputStream(bytes) {
            @Override
            public synchronized int read(byte[] b, int off, int len) {
                now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
                return super.read(b, off, Math.min(len, 2));
            }
        };
        assertEquals(bytes.length, new ContainerBodyInputStream(slow, now::get).readAllBytes().length);
    }

    @Test
    void containerFailuresAreS3Errors() {
        InputStream failing = new ContainerBodyInputStream(new InputStream() {
            @Override
            public int read() {
                throw new IllegalStateException("Request content data rate < 1024 B/s");
            }
        });
        S3BodyException e = assertThrows(S3BodyException.class, failing::read);
        assertEquals(S3ErrorCode.REQUEST_TIMEOUT.code(), e.s3().code());
        InputStream broken = new ContainerBodyInputStream(new InputStream() {
            @Override
            public int read() {
                throw new IllegalStateException("early EOF");
            }
        });
        assertEquals(S3ErrorCode.INCOMPLETE_BODY.code(), assertThrows(S3BodyException.class, broken::read).s3().code());
    }
}
