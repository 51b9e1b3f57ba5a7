package org.objrdma.store.tck;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Random;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.ChecksumHasher;

/** Byte sources and reference digests the contract suite compares a store's answers against. */
public final class StoreFixtures {
    private StoreFixtures() {
    }

    public static byte[] randomBytes(long seed, int length) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    public static String md5Hex(byte[]... chunks) {
        MessageDigest md5 = md5();
        for (byte[] c : chunks) {
            md5.update(c);
        }
        return HexFormat.of().formatHex(md5.digest());
    }

    static MessageDigest md5() {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String checksum(ChecksumAlgorithm algorithm, byte[] data) {
        ChecksumHasher h = algorithm.newHasher();
        h.update(data, 0, data.length);
        return h.base64();
    }

    /** A body that fails with an IOException after {@code goodBytes}, like a vanished client. */
    public static InputStream failingAfter(byte[] data, int goodBytes) {
        return new InputStream() {
            private int position;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (position >= goodBytes) {
                    throw new IOException("the client went away (planted)");
                }
                int n = Math.min(len, goodBytes - position);
                System.arraycopy(data, position, b, off, n);
                position += n;
                return n;
            }
        };
    }

    /** A body whose reads come back in small pieces, and which remembers whether it was read to its end. */
    public static final class TrickleStream extends InputStream {
        private final ByteArrayInputStream in;
        private volatile boolean reachedEnd;

        public TrickleStream(byte[] data) {
            this.in = new ByteArrayInputStream(data);
        }

        public boolean reachedEnd() {
            return reachedEnd;
        }

        @Override
        public int read() {
            int b = in.read();
            reachedEnd |= b < 0;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            int n = in.read(b, off, Math.min(len, 1000));
            reachedEnd |= n < 0;
            return n;
        }
    }
}
