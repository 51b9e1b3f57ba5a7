package org.objrdma.api.store;

import java.nio.ByteBuffer;

/**
 * CRC-64/NVME (the NVMe command set's CRC, S3's {@code CRC64NVME}): reflected polynomial
 * 0x9A6C9329AC4BC9B5, initial value and final xor all ones. The JDK has no 64-bit CRC and the only
 * library implementations come with the AWS CRT native library, so this one is written here:
 * slice-by-8 tables, about one table lookup per byte.
 */
final class Crc64Nvme implements ChecksumHasher {
    private static final long POLY_REFLECTED = 0x9A6C9329AC4BC9B5L;
    private static final long[][] TABLES = tables();

    private long crc = -1L;

    @Override
    public void update(byte[] bytes, int offset, int length) {
        long c = crc;
        int i = offset;
        int end = offset + length;
        long[][] t = TABLES;
        while (end - i >= 8) {
            long word = c ^ ((bytes[i] & 0xFFL)
                    | (bytes[i + 1] & 0xFFL) << 8
                    | (bytes[i + 2] & 0xFFL) << 16
                    | (bytes[i + 3] & 0xFFL) << 24
                    | (bytes[i + 4] & 0xFFL) << 32
                    | (bytes[i + 5] & 0xFFL) << 40
                    | (bytes[i + 6] & 0xFFL) << 48
                    | (bytes[i + 7] & 0xFFL) << 56);
            c = t[7][(int) (word & 0xFF)]
                    ^ t[6][(int) ((word >>> 8) & 0xFF)]
                    ^ t[5][(int) ((word >>> 16) & 0xFF)]
                    ^ t[4][(int) ((word >>> 24) & 0xFF)]
                    ^ t[3][(int) ((word >>> 32) & 0xFF)]
                    ^ t[2][(int) ((word >>> 40) & 0xFF)]
                    ^ t[1][(int) ((word >>> 48) & 0xFF)]
                    ^ t[0][(int) (word >>> 56)];
            i += 8;
        }
        while (i < end) {
            c = t[0][(int) ((c ^ bytes[i]) & 0xFF)] ^ (c >>> 8);
            i++;
        }
        crc = c;
    }

    @Override
    public void update(ByteBuffer bytes) {
        if (bytes.hasArray()) {
            int n = bytes.remaining();
            update(bytes.array(), bytes.arrayOffset() + bytes.position(), n);
            bytes.position(bytes.position() + n);
            return;
        }
        byte[] chunk = new byte[Math.min(bytes.remaining(), 64 * 1024)];
        while (bytes.hasRemaining()) {
            int n = Math.min(chunk.length, bytes.remaining());
            bytes.get(chunk, 0, n);
            update(chunk, 0, n);
        }
    }

    @Override
    public byte[] digest() {
        return JdkChecksumHasher.bigEndian(~crc, 8);
    }

    private static long[][] tables() {
        long[][] t = new long[8][256];
        for (int n = 0; n < 256; n++) {
            long c = n;
            for (int k = 0; k < 8; k++) {
                c = (c & 1) != 0 ? (c >>> 1) ^ POLY_REFLECTED : c >>> 1;
            }
            t[0][n] = c;
        }
        for (int n = 0; n < 256; n++) {
            long c = t[0][n];
            for (int k = 1; k < 8; k++) {
                c = t[0][(int) (c & 0xFF)] ^ (c >>> 8);
                t[k][n] = c;
            }
        }
        return t;
    }
}
