package org.objrdma.cuobj;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.zip.CRC32C;

/** Fast reproducible test data and checksums, shared by the test JVM and the client process. */
final class Patterns {
    /** The allow list of servers whose clients' memory agents listen on loopback (every test here). */
    static final String LOOPBACK = "127.0.0.0/8,::1";

    private Patterns() {
    }

    /** Fills {@code [offset, offset + length)} with a SplitMix64 stream seeded by {@code seed}. */
    static void fill(MemorySegment s, long offset, long length, long seed) {
        long x = seed;
        long i = 0;
        for (; i + 8 <= length; i += 8) {
            x += 0x9E3779B97F4A7C15L;
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, offset + i, mix(x));
        }
        long last = mix(x + 0x9E3779B97F4A7C15L);
        for (; i < length; i++) {
            s.set(ValueLayout.JAVA_BYTE, offset + i, (byte) (last >>> (8 * (i & 7))));
        }
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** CRC32C of {@code [offset, offset + length)}. */
    static long crc(MemorySegment s, long offset, long length) {
        CRC32C crc = new CRC32C();
        long done = 0;
        while (done < length) {
            int n = (int) Math.min(length - done, 1 << 30);
            crc.update(s.asSlice(offset + done, n).asByteBuffer());
            done += n;
        }
        return crc.getValue();
    }

    /** CRC32C of several pieces in order, as one stream. */
    static long crc(MemorySegment... pieces) {
        CRC32C crc = new CRC32C();
        for (MemorySegment p : pieces) {
            crc.update(p.asByteBuffer());
        }
        return crc.getValue();
    }
}
