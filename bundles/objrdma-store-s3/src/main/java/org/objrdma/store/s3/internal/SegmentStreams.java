package org.objrdma.store.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Moves bytes between a staging segment and the SDK's streams in bounded chunks, so an object is never
 * copied whole onto the heap: the request body reads the segment through a window, the response body is
 * read straight into the segment.
 */
final class SegmentStreams {
    static final int CHUNK = 64 * 1024;

    private SegmentStreams() {
    }

    /** A stream over {@code segment} (no copy; reads copy at most the caller's buffer at a time). */
    static InputStream reading(MemorySegment segment) {
        return new InputStream() {
            private long position;

            @Override
            public int read() {
                return position < segment.byteSize() ? segment.get(ValueLayout.JAVA_BYTE, position++) & 0xFF : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                long left = segment.byteSize() - position;
                if (left <= 0) {
                    return len == 0 ? 0 : -1;
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

    /** Reads {@code in} into {@code destination} until it is full or {@code in} ends; returns the bytes read. */
    static long fill(InputStream in, MemorySegment destination) throws IOException {
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
}
