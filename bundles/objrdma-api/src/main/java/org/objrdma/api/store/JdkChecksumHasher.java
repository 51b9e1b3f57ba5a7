package org.objrdma.api.store;

import java.nio.ByteBuffer;
import java.util.zip.Checksum;

/** A JDK {@link Checksum} (CRC32, CRC32C) giving its value as {@code width} big-endian bytes. */
final class JdkChecksumHasher implements ChecksumHasher {
    private final Checksum checksum;
    private final int width;

    JdkChecksumHasher(Checksum checksum, int width) {
        this.checksum = checksum;
        this.width = width;
    }

    @Override
    public void update(byte[] bytes, int offset, int length) {
        checksum.update(bytes, offset, length);
    }

    @Override
    public void update(ByteBuffer bytes) {
        checksum.update(bytes);
    }

    @Override
    public byte[] digest() {
        return bigEndian(checksum.getValue(), width);
    }

    /** The low {@code width} bytes of {@code value}, most significant first. */
    static byte[] bigEndian(long value, int width) {
        byte[] out = new byte[width];
        for (int i = width - 1; i >= 0; i--) {
            out[i] = (byte) value;
            value >>>= 8;
        }
        return out;
    }
}
