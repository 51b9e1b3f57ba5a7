package org.objrdma.client.sdk;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** The HTTP path's view of registered memory: a body read from it, a body written into it. */
final class SegmentStreams {
    private static final int BUFFER = 1 << 16;

    private SegmentStreams() {
    }

    /** Reads {@code segment} from its start to its end. */
    static InputStream reader(MemorySegment segment) {
        return new InputStream() {
            private long at;

            @Override
            public int read() {
                return at < segment.byteSize() ? segment.get(ValueLayout.JAVA_BYTE, at++) & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (len == 0) {
                    return 0;
                }
                long left = segment.byteSize() - at;
                if (left <= 0) {
                    return -1;
                }
                int n = (int) Math.min(len, left);
                MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, at, b, off, n);
                at += n;
                return n;
            }
        };
    }

    /**
     * Copies {@code in} into {@code segment} from its start.
     *
     * @return the bytes copied
     * @throws IOException if the stream holds more than the segment takes
     */
    static long fill(InputStream in, MemorySegment segment) throws IOException {
        byte[] buf = new byte[BUFFER];
        long at = 0;
        for (int n; (n = in.read(buf)) > 0; ) {
            if (at + n > segment.byteSize()) {
                throw new IOException("the object is larger than the " + segment.byteSize() + " bytes of memory given");
            }
            MemorySegment.copy(buf, 0, segment, ValueLayout.JAVA_BYTE, at, n);
            at += n;
        }
        return at;
    }
}
