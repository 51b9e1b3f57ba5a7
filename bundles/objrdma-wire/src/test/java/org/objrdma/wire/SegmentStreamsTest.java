package org.objrdma.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SegmentStreamsTest {
    private static final int SIZE = 3 * SegmentStreams.CHUNK + 17;

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** A stream that hands out at most 1000 bytes per read, as a network body does. */
    private static InputStream trickle(byte[] b) {
        return new ByteArrayInputStream(b) {
            @Override
            public synchronized int read(byte[] dst, int off, int len) {
                return super.read(dst, off, Math.min(len, 1000));
            }
        };
    }

    @Test
    void readingReturnsTheSegmentByteForByteAndThenEnds() throws IOException {
        byte[] object = bytes(SIZE, 1);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment segment = arena.allocate(SIZE);
            MemorySegment.copy(object, 0, segment, ValueLayout.JAVA_BYTE, 0, SIZE);
            InputStream in = SegmentStreams.reading(segment);
            assertEquals(SIZE, in.available());
            assertEquals(object[0] & 0xFF, in.read());
            assertEquals(0, in.read(new byte[4], 0, 0));
            assertEquals(10, in.skip(10));
            byte[] rest = in.readAllBytes();
            assertEquals(SIZE - 11, rest.length);
            assertArrayEquals(java.util.Arrays.copyOfRange(object, 11, SIZE), rest);
            assertEquals(-1, in.read());
            assertEquals(-1, in.read(new byte[4]));
            assertEquals(0, in.skip(5));
            assertThrows(IndexOutOfBoundsException.class, () -> in.read(new byte[4], 3, 2));
        }
    }

    @Test
    void fillUpToStopsWhenTheSegmentIsFull() throws IOException {
        byte[] object = bytes(SIZE, 2);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment small = arena.allocate(SIZE - 100);
            InputStream in = trickle(object);
            assertEquals(SIZE - 100, SegmentStreams.fillUpTo(in, small));
            assertArrayEquals(java.util.Arrays.copyOf(object, SIZE - 100), small.toArray(ValueLayout.JAVA_BYTE));
            assertEquals(100, in.readAllBytes().length, "what did not fit is left unread");

            MemorySegment large = arena.allocate(SIZE + 100);
            assertEquals(SIZE, SegmentStreams.fillUpTo(trickle(object), large));
            assertArrayEquals(object, large.asSlice(0, SIZE).toArray(ValueLayout.JAVA_BYTE));
            assertEquals(0, SegmentStreams.fillUpTo(trickle(object), MemorySegment.NULL));
        }
    }

    @Test
    void fillAllRefusesAStreamLargerThanTheSegment() throws IOException {
        byte[] object = bytes(SIZE, 3);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment exact = arena.allocate(SIZE);
            assertEquals(SIZE, SegmentStreams.fillAll(trickle(object), exact));
            assertArrayEquals(object, exact.toArray(ValueLayout.JAVA_BYTE));
            IOException e = assertThrows(IOException.class,
                    () -> SegmentStreams.fillAll(trickle(object), arena.allocate(SIZE - 1)));
            assertEquals("the object is larger than the " + (SIZE - 1) + " bytes of memory given", e.getMessage());
        }
    }
}
