package org.objrdma.api.store;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.zip.CRC32;
import java.util.zip.CRC32C;

/**
 * The additional checksums S3 knows, with their S3 names, and a streaming hasher producing the base64
 * value S3 prints in {@code x-amz-checksum-*} headers (the big-endian bytes of a CRC, the digest of a
 * SHA).
 */
public enum ChecksumAlgorithm {
    CRC32("CRC32", 4),
    CRC32C("CRC32C", 4),
    CRC64NVME("CRC64NVME", 8),
    SHA1("SHA1", 20),
    SHA256("SHA256", 32);

    private final String s3Name;
    private final int digestLength;

    ChecksumAlgorithm(String s3Name, int digestLength) {
        this.s3Name = s3Name;
        this.digestLength = digestLength;
    }

    /** As in {@code x-amz-checksum-algorithm} / {@code x-amz-sdk-checksum-algorithm}: {@code CRC64NVME}. */
    public String s3Name() {
        return s3Name;
    }

    /** The header carrying the value: {@code x-amz-checksum-crc64nvme}. */
    public String headerName() {
        return "x-amz-checksum-" + s3Name.toLowerCase(Locale.ROOT);
    }

    /** The XML element in S3 responses and CompleteMultipartUpload: {@code ChecksumCRC64NVME}. */
    public String xmlElement() {
        return "Checksum" + s3Name;
    }

    /** Bytes of the raw checksum. */
    public int digestLength() {
        return digestLength;
    }

    /** The algorithm named {@code name} as S3 spells it (case-insensitive), if any. */
    public static Optional<ChecksumAlgorithm> fromS3Name(String name) {
        for (ChecksumAlgorithm a : values()) {
            if (a.s3Name.equalsIgnoreCase(name)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    /** The algorithm whose value header is {@code header} (case-insensitive), if any. */
    public static Optional<ChecksumAlgorithm> fromHeaderName(String header) {
        for (ChecksumAlgorithm a : values()) {
            if (a.headerName().equalsIgnoreCase(header)) {
                return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    /** A fresh hasher; not thread-safe, one per stream. */
    public ChecksumHasher newHasher() {
        return switch (this) {
            case CRC32 -> new JdkChecksumHasher(new CRC32(), 4);
            case CRC32C -> new JdkChecksumHasher(new CRC32C(), 4);
            case CRC64NVME -> new Crc64Nvme();
            case SHA1 -> new JdkDigestHasher(messageDigest("SHA-1"));
            case SHA256 -> new JdkDigestHasher(messageDigest("SHA-256"));
        };
    }

    /**
     * S3's composite multipart checksum: this algorithm over the concatenated raw part checksums, in base64,
     * followed by {@code -N} (the part count).
     *
     * @param partChecksumsBase64 each part's value as {@link ChecksumHasher#base64()} gave it, in part order
     */
    public String composite(List<String> partChecksumsBase64) {
        ChecksumHasher hasher = newHasher();
        for (String part : partChecksumsBase64) {
            byte[] raw = Base64.getDecoder().decode(part);
            hasher.update(raw, 0, raw.length);
        }
        return hasher.base64() + "-" + partChecksumsBase64.size();
    }

    /** True if {@code value} is well-formed base64 of a raw checksum of this algorithm's length. */
    public boolean isWellFormed(String value) {
        try {
            return value != null && Base64.getDecoder().decode(value).length == digestLength;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    private static MessageDigest messageDigest(String name) {
        try {
            return MessageDigest.getInstance(name);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(name + " is required of every JDK", e);
        }
    }
}
