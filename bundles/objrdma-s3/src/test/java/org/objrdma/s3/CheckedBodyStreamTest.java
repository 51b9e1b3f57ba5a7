package org.objrdma.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The base of the gateway's body wrappers: every way of reading passes the limit and the checks. */
class CheckedBodyStreamTest {

    /** Records what it was shown. */
    private static final class Recording extends CheckedBodyStream {
        final List<Integer> seen = new ArrayList<>();
        long endedAt = -1;

        Recording(InputStream in, long limit) {
            super(in, limit);
        }

        @Override
        protected void onBytes(byte[] b, int off, int n) {
            seen.add(n);
        }

        @Override
        protected void onEnd(long total) {
            endedAt = total;
        }
    }

    /** A body that says how much each read asked for. */
    private static final class Asking extends ByteArrayInputStream {
        final List<Integer> asked = new ArrayList<>();

        Asking(int size) {
            super(new byte[size]);
        }

        @Override
        public synchronized int read(byte[] b, int off, int len) {
            asked.add(len);
            return super.read(b, off, len);
        }
    }

    @Test
    void aReadAsksForAtMostOneBytePastTheLimitAndFailsThere() {
        Asking body = new Asking(100);
        Recording r = new Recording(body, 10);
        IOException e = assertThrows(S3BodyException.class, () -> r.read(new byte[64], 0, 64));
        assertEquals(S3ErrorCode.ENTITY_TOO_LARGE.code(), ((S3BodyException) e).s3().code());
        assertEquals(List.of(11), body.asked);
        assertEquals(List.of(), r.seen, "bytes past the limit are never shown to a check nor handed on");
    }

    @Test
    void singleByteReadsAndSkipsPassTheSameLimitAndChecks() throws IOException {
        Recording r = new Recording(new ByteArrayInputStream(new byte[] {1, 2, 3, 4, 5, 6}), 5);
        assertEquals(1, r.read());
        assertEquals(3, r.skip(3));
        assertEquals(5, r.read());
        assertThrows(S3BodyException.class, r::read, "the sixth byte crosses the limit, read one at a time");
        assertEquals(List.of(1, 3, 1), r.seen);
        assertFalse(r.markSupported());
    }

    @Test
    void theEndIsShownWithTheCountAndABodyAtTheLimitPasses() throws IOException {
        Recording r = new Recording(new ByteArrayInputStream(new byte[] {7, 8, 9}), 3);
        assertArrayEquals(new byte[] {7, 8, 9}, r.readAllBytes());
        assertEquals(3, r.endedAt);
    }
}
