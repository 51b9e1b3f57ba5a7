package org.objrdma.wire;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Objects;

/**
 * Moves bytes between native memory (a registered client buffer, a staging segment) and the streams of an HTTP
 * stack in bounded chunks, so an object is never copied whole onto the heap: a request body reads the segment
 * through a window, a response body is read straight into the segment. Used by the client SDK's HTTP path and
 * the S3 store adapter.
 *
 * @since 1.3
 */
public final class SegmentStreams {
    /** The most a fill copies through its heap window at a time. */
    public static final int CHUNK = 64 * 1024;

    private SegmentStreams() {
    }

    /** A stream over {@code segment} from its start to its end (no copy; a read copies at most the caller's buffer). */
    public static InputStream reading(MemorySegment segment) {
        Objects.requireNonNull(segment, "segment");
        return new InputStream() {
            private long position;

            @Override
            public int read() {
                return position < segment.byteSize() ? segment.get(ValueLayout.JAVA_BYTE, position++) & 0xFF : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                Objects.checkFromIndexSize(off, len, b.length);
                if (len == 0) {
                    return 0;
                }
                long left = segment.byteSize() - position;
                if (left <= 0) {
                    return -1;
                }
                int n = (int) Math.min(len, left);
                MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, position, b, off, n);
                position += n;
                return n;
            }

            @Override
            public long skip(long n) {
                long k = Math.max(0, Math.min(n, segment.byteSize() - position));
                position += k;
                return k;
            }

            @Override
            public int available() {
                return (int) Math.min(Integer.MAX_VALUE, segment.byteSize() - position);
            }
        };
    }

    /**
     * Reads {@code in} into {@code destination} from its start until it is full or {@code in} ends; what the stream
     * holds beyond is left unread.
     *
     * @return the bytes read
     */
    public static long fillUpTo(InputStream in, MemorySegment destination) throws IOException {
        byte[] window = new byte[(int) Math.min(CHUNK, Math.max(1, destination.byteSize()))];
        long filled = 0;
        while (filled < destination.byteSize()) {
            int n = in.read(window, 0, (int) Math.min(window.length, destination.byteSize() - filled));
            if (n < 0) {
                break;
            }
            MemorySegment.copy(window, 0, destination, ValueLayout.JAVA_BYTE, filled, n);
            filled += n;
        }
        return filled;
    }

    /**
     * Copies all of {@code in} into {@code destination} from its start.
     *
     * @return the bytes copied
     * @throws IOException if the stream holds more than the segment takes (what fitted is copied)
     */
    public static long fillAll(InputStream in, MemorySegment destination) throws IOException {
        byte[] window = new byte[CHUNK];
        long filled = 0;
        for (int n; (n = in.read(window)) > 0; ) {
            if (filled + n > destination.byteSize()) {
                throw new IOException("the object is larger than the " + destination.byteSize()
                        + " bytes of memory given");
            }
            MemorySegment.copy(window, 0, destination, ValueLayout.JAVA_BYTE, filled, n);
            filled += n;
        }
        return filled;
    }
}
