package org.objrdma.store.fs.internal;

import java.io.InputStream;
import java.util.SplittableRandom;
import java.util.function.LongConsumer;
import java.util.zip.CRC32C;

/** A reproducible body of {@code length} pseudo-random bytes; the kill test regenerates it to check contents. */
final class SeededBytes extends InputStream {
    private final SplittableRandom random;
    private final long length;
    private final LongConsumer progress;
    private long position;
    private long word;
    private int wordLeft;

    SeededBytes(long seed, long length, LongConsumer progress) {
        this.random = new SplittableRandom(seed);
        this.length = length;
        this.progress = progress;
    }

    @Override
    public int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        if (position >= length) {
            return -1;
        }
        int n = (int) Math.min(len, length - position);
        for (int i = 0; i < n; i++) {
            if (wordLeft == 0) {
                word = random.nextLong();
                wordLeft = 8;
            }
            b[off + i] = (byte) word;
            word >>>= 8;
            wordLeft--;
        }
        position += n;
        progress.accept(position);
        return n;
    }

    /** CRC32C of the whole body. */
    static long crc(long seed, long length) {
        CRC32C crc = new CRC32C();
        byte[] buf = new byte[1 << 20];
        try (SeededBytes in = new SeededBytes(seed, length, p -> { })) {
            int n;
            while ((n = in.read(buf, 0, buf.length)) > 0) {
                crc.update(buf, 0, n);
            }
        }
        return crc.getValue();
    }

    @Override
    public void close() {
        // nothing held
    }
}
