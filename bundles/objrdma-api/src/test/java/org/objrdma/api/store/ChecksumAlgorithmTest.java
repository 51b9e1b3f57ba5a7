package org.objrdma.api.store;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ChecksumAlgorithmTest {
    private static final byte[] CHECK = "123456789".getBytes(StandardCharsets.US_ASCII);

    private static String hex(ChecksumAlgorithm a, byte[] data) {
        ChecksumHasher h = a.newHasher();
        h.update(data, 0, data.length);
        return HexFormat.of().formatHex(h.digest());
    }

    @Test
    void knownCheckValues() {
        // CRC catalogue check values over "123456789"; CRC64NVME as the AWS SDK's tests give it
        assertEquals("ae8b14860a799888", hex(ChecksumAlgorithm.CRC64NVME, CHECK));
        assertEquals("cbf43926", hex(ChecksumAlgorithm.CRC32, CHECK));
        assertEquals("e3069283", hex(ChecksumAlgorithm.CRC32C, CHECK));
        assertEquals("f7c3bc1d808e04732adf679965ccc34ca7ae3441", hex(ChecksumAlgorithm.SHA1, CHECK));
        assertEquals("15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225",
                hex(ChecksumAlgorithm.SHA256, CHECK));
    }

    @Test
    void base64IsOfTheBigEndianBytes() {
        ChecksumHasher h = ChecksumAlgorithm.CRC64NVME.newHasher();
        h.update(CHECK, 0, CHECK.length);
        assertEquals(Base64.getEncoder().encodeToString(HexFormat.of().parseHex("ae8b14860a799888")), h.base64());
        assertEquals("rosUhgp5mIg=", h.base64());
        ChecksumHasher empty = ChecksumAlgorithm.CRC64NVME.newHasher();
        assertEquals("0000000000000000", HexFormat.of().formatHex(empty.digest()));
    }

    /** The slice-by-8 path must agree with the plain bit-by-bit definition for every length and split. */
    @Test
    void crc64NvmeMatchesTheBitwiseDefinition() {
        Random random = new Random(42);
        for (int len = 0; len < 300; len++) {
            byte[] data = new byte[len];
            random.nextBytes(data);
            ChecksumHasher h = ChecksumAlgorithm.CRC64NVME.newHasher();
            int split = len == 0 ? 0 : random.nextInt(len);
            h.update(data, 0, split);
            h.update(ByteBuffer.allocateDirect(len - split).put(data, split, len - split).flip());
            assertEquals(bitwiseCrc64Nvme(data), ByteBuffer.wrap(h.digest()).getLong(), "length " + len);
        }
    }

    private static long bitwiseCrc64Nvme(byte[] data) {
        long crc = -1L;
        for (byte b : data) {
            crc ^= b & 0xFF;
            for (int k = 0; k < 8; k++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0x9A6C9329AC4BC9B5L : crc >>> 1;
            }
        }
        return ~crc;
    }

    @Test
    void digestDoesNotResetTheRunningValue() {
        for (ChecksumAlgorithm a : ChecksumAlgorithm.values()) {
            ChecksumHasher h = a.newHasher();
            h.update(CHECK, 0, 4);
            h.digest();
            h.update(CHECK, 4, CHECK.length - 4);
            assertEquals(hex(a, CHECK), HexFormat.of().formatHex(h.digest()), a.name());
            assertEquals(a.digestLength(), h.digest().length);
            assertTrue(a.isWellFormed(h.base64()));
        }
        assertFalse(ChecksumAlgorithm.CRC32.isWellFormed("not base64!"));
        assertFalse(ChecksumAlgorithm.CRC32.isWellFormed("rosUhgp5mIg="));
    }

    @Test
    void s3NamesAndHeaders() {
        assertEquals("x-amz-checksum-crc64nvme", ChecksumAlgorithm.CRC64NVME.headerName());
        assertEquals("CRC64NVME", ChecksumAlgorithm.CRC64NVME.s3Name());
        assertEquals("ChecksumSHA256", ChecksumAlgorithm.SHA256.xmlElement());
        assertEquals(ChecksumAlgorithm.CRC32C, ChecksumAlgorithm.fromS3Name("crc32c").orElseThrow());
        assertEquals(ChecksumAlgorithm.SHA1, ChecksumAlgorithm.fromHeaderName("X-Amz-Checksum-Sha1").orElseThrow());
        assertTrue(ChecksumAlgorithm.fromS3Name("MD5").isEmpty());
        assertTrue(ChecksumAlgorithm.fromHeaderName("x-amz-checksum-").isEmpty());
    }

    @Test
    void compositeIsTheChecksumOfTheRawPartChecksums() {
        ChecksumHasher p1 = ChecksumAlgorithm.CRC32.newHasher();
        p1.update(CHECK, 0, 4);
        ChecksumHasher p2 = ChecksumAlgorithm.CRC32.newHasher();
        p2.update(CHECK, 4, 5);
        ChecksumHasher expected = ChecksumAlgorithm.CRC32.newHasher();
        expected.update(p1.digest(), 0, 4);
        expected.update(p2.digest(), 0, 4);
        assertEquals(expected.base64() + "-2", ChecksumAlgorithm.CRC32.composite(List.of(p1.base64(), p2.base64())));
    }
}
