package org.objrdma.itests.s3;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.SplittableRandom;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;
import java.util.zip.Checksum;

/**
 * Test data and the checksums that prove a round trip byte-exact: random bytes by seed, files written in a
 * stream with their digest computed while writing (so a 1 GiB object never sits on the heap), and the S3
 * checksum header values (base64 of the big-endian CRC or digest).
 */
final class Payloads {

    private static final int BUFFER = 1 << 20;

    private Payloads() {
    }

    static byte[] random(int size, long seed) {
        byte[] b = new byte[size];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** Writes {@code size} pseudo-random bytes to {@code file}; returns their SHA-256 (hex), computed as written. */
    static String writeFile(Path file, long size, long seed) throws IOException {
        SplittableRandom random = new SplittableRandom(seed);
        MessageDigest sha = sha256();
        byte[] buffer = new byte[BUFFER];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long left = size; left > 0; ) {
                int n = (int) Math.min(buffer.length, left);
                random.nextBytes(buffer);
                sha.update(buffer, 0, n);
                out.write(buffer, 0, n);
                left -= n;
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    /** SHA-256 (hex) of everything {@code in} yields, read in 1 MiB steps; closes {@code in}. */
    static String sha256(InputStream in) throws IOException {
        MessageDigest sha = sha256();
        byte[] buffer = new byte[BUFFER];
        try (in) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                sha.update(buffer, 0, n);
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    static String sha256(byte[] data) {
        return HexFormat.of().formatHex(sha256().digest(data));
    }

    static String sha256(Path file) throws IOException {
        return sha256(Files.newInputStream(file));
    }

    static String md5Hex(byte[] data) {
        return HexFormat.of().formatHex(digest("MD5").digest(data));
    }

    static String md5Base64(byte[] data) {
        return Base64.getEncoder().encodeToString(digest("MD5").digest(data));
    }

    /** The value S3 stores and returns for {@code algorithm} (CRC32, CRC32C, CRC64NVME, SHA1, SHA256). */
    static String checksum(String algorithm, byte[] data) {
        return switch (algorithm) {
            case "CRC32" -> crc(new CRC32(), data);
            case "CRC32C" -> crc(new CRC32C(), data);
            case "CRC64NVME" -> Base64.getEncoder().encodeToString(longBytes(Crc64Nvme.of(data)));
            case "SHA1" -> Base64.getEncoder().encodeToString(digest("SHA-1").digest(data));
            case "SHA256" -> Base64.getEncoder().encodeToString(sha256().digest(data));
            default -> throw new IllegalArgumentException(algorithm);
        };
    }

    private static String crc(Checksum crc, byte[] data) {
        crc.update(data, 0, data.length);
        long v = crc.getValue();
        return Base64.getEncoder().encodeToString(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8),
                (byte) v});
    }

    private static byte[] longBytes(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (56 - 8 * i));
        }
        return b;
    }

    private static MessageDigest sha256() {
        return digest("SHA-256");
    }

    private static MessageDigest digest(String name) {
        try {
            return MessageDigest.getInstance(name);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * CRC-64/NVME (reflected polynomial 0x9a6c9329ac4bc9b5, init and final xor all ones), which the JDK lacks
     * and the SDK computes only through the native CRT; a table-driven loop is plenty for test objects.
     */
    static final class Crc64Nvme {
        private static final long[] TABLE = new long[256];

        static {
            for (int i = 0; i < 256; i++) {
                long c = i;
                for (int k = 0; k < 8; k++) {
                    c = (c & 1) != 0 ? (c >>> 1) ^ 0x9a6c9329ac4bc9b5L : c >>> 1;
                }
                TABLE[i] = c;
            }
        }

        private Crc64Nvme() {
        }

        static long of(byte[] data) {
            long crc = ~0L;
            for (byte b : data) {
                crc = TABLE[(int) ((crc ^ b) & 0xff)] ^ (crc >>> 8);
            }
            return ~crc;
        }
    }
}
