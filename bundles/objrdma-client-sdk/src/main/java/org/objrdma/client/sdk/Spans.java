package org.objrdma.client.sdk;

import java.lang.foreign.MemorySegment;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.objrdma.client.ClientMemory;

/**
 * The argument rules every path shares, checked before anything is sent: the span of the caller's memory a call
 * may touch, and the {@code Range} forms the RDMA paths can express.
 */
final class Spans {
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d*)");

    private Spans() {
    }

    /**
     * {@code bytes=a-b} as {@code {a, b + 1}}, {@code bytes=a-} as {@code {a, -1}}, none as null.
     *
     * @throws IllegalArgumentException for a suffix range, several ranges, or {@code b < a}
     */
    static long[] parseRange(String range) {
        if (range == null || range.isBlank()) {
            return null;
        }
        Matcher m = RANGE.matcher(range.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("Range '" + range + "': only bytes=FIRST-LAST and bytes=FIRST- are"
                    + " supported over RDMA");
        }
        long first = Long.parseLong(m.group(1));
        if (m.group(2).isEmpty()) {
            return new long[] {first, -1};
        }
        long last = Long.parseLong(m.group(2));
        if (last < first) {
            throw new IllegalArgumentException("Range '" + range + "': the last byte is before the first");
        }
        return new long[] {first, last + 1};
    }

    /**
     * @throws IllegalArgumentException {@code [offset, +size)} outside the memory, or more than
     *                                  {@link RdmaS3#MAX_REQUEST} bytes
     */
    static void checkMemory(ClientMemory memory, long offset, long size) {
        Objects.requireNonNull(memory, "memory");
        if (offset < 0 || size < 0 || offset > memory.size() || size > memory.size() - offset) {
            throw new IllegalArgumentException("[" + offset + ", +" + size + ") is outside the " + memory.size()
                    + " bytes of memory");
        }
        if (size > RdmaS3.MAX_REQUEST) {
            throw new IllegalArgumentException(size + " bytes exceed the " + RdmaS3.MAX_REQUEST + " bytes one"
                    + " request moves: upload larger objects in parts (CreateMultipartUpload, uploadPart,"
                    + " CompleteMultipartUpload)");
        }
    }

    static MemorySegment slice(ClientMemory memory, long offset, long size) {
        return memory.segment().asSlice(offset, size);
    }
}
