package org.objrdma.api.store;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * S3's fixed bounds and the name rules every store applies the same way, so a gateway in front of any
 * store rejects the same requests with the same errors.
 */
public final class StoreLimits {
    /** Longest key, in UTF-8 bytes. */
    public static final int MAX_KEY_BYTES = 1024;
    /** Most keys (plus common prefixes) one listing page returns; larger requests are capped. */
    public static final int MAX_KEYS = 1000;
    /** Most keys one DeleteObjects request names. */
    public static final int MAX_DELETE_KEYS = 1000;
    /** Highest part number (part numbers start at 1), hence also the most parts an upload has. */
    public static final int MAX_PART_NUMBER = 10_000;
    /** Smallest size of every part but the last. */
    public static final long MIN_PART_SIZE = 5L * 1024 * 1024;
    /** Largest single part. */
    public static final long MAX_PART_SIZE = 5L * 1024 * 1024 * 1024;
    /** Largest object S3 stores; a store may configure less. */
    public static final long MAX_OBJECT_SIZE = 5L * 1024 * 1024 * 1024 * 1024;
    /** Most bytes of user metadata (names without {@code x-amz-meta-} plus values, UTF-8). */
    public static final int MAX_USER_METADATA_BYTES = 2048;

    private static final Pattern BUCKET_CHARS = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
    private static final Pattern IPV4_FORM = Pattern.compile("\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
    private static final String[] RESERVED_PREFIXES = {"xn--", "sthree-", "amzn-s3-demo-"};
    private static final String[] RESERVED_SUFFIXES = {"-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3"};

    private StoreLimits() {
    }

    /**
     * S3's general-purpose bucket rules: 3..63 characters of lower-case letters, digits, dots and
     * hyphens, starting and ending with a letter or digit, no two adjacent dots, not shaped like an IPv4
     * address, none of S3's reserved prefixes or suffixes.
     *
     * @throws StoreException INVALID_BUCKET_NAME naming the broken rule
     */
    public static void validateBucketName(String bucket) throws StoreException {
        if (bucket == null || !BUCKET_CHARS.matcher(bucket).matches()) {
            throw invalidBucket(bucket, "3 to 63 of a-z 0-9 . - starting and ending with a letter or digit");
        }
        if (bucket.contains("..")) {
            throw invalidBucket(bucket, "two adjacent dots");
        }
        if (IPV4_FORM.matcher(bucket).matches()) {
            throw invalidBucket(bucket, "formatted as an IP address");
        }
        for (String prefix : RESERVED_PREFIXES) {
            if (bucket.startsWith(prefix)) {
                throw invalidBucket(bucket, "reserved prefix " + prefix);
            }
        }
        for (String suffix : RESERVED_SUFFIXES) {
            if (bucket.endsWith(suffix)) {
                throw invalidBucket(bucket, "reserved suffix " + suffix);
            }
        }
    }

    private static StoreException invalidBucket(String bucket, String rule) {
        return new StoreException(StoreError.INVALID_BUCKET_NAME,
                "bucket name '" + bucket + "' is not valid: " + rule);
    }

    /**
     * A key is non-empty, valid Unicode (no lone surrogate) and at most {@link #MAX_KEY_BYTES} in UTF-8.
     *
     * @return the key's UTF-8 bytes
     * @throws StoreException KEY_TOO_LONG, or INVALID_ARGUMENT for an empty or malformed key
     */
    public static byte[] validateKey(String key) throws StoreException {
        if (key == null || key.isEmpty()) {
            throw new StoreException(StoreError.INVALID_ARGUMENT, "the key must not be empty");
        }
        byte[] utf8 = strictUtf8(key);
        if (utf8 == null) {
            throw new StoreException(StoreError.INVALID_ARGUMENT, "the key is not valid Unicode (lone surrogate)");
        }
        if (utf8.length > MAX_KEY_BYTES) {
            throw new StoreException(StoreError.KEY_TOO_LONG,
                    "the key is " + utf8.length + " UTF-8 bytes, at most " + MAX_KEY_BYTES + " are allowed");
        }
        return utf8;
    }

    /** @throws StoreException METADATA_TOO_LARGE past {@link #MAX_USER_METADATA_BYTES} */
    public static void validateUserMetadata(Map<String, String> userMetadata) throws StoreException {
        long bytes = 0;
        for (Map.Entry<String, String> e : userMetadata.entrySet()) {
            bytes += e.getKey().getBytes(StandardCharsets.UTF_8).length
                    + e.getValue().getBytes(StandardCharsets.UTF_8).length;
        }
        if (bytes > MAX_USER_METADATA_BYTES) {
            throw new StoreException(StoreError.METADATA_TOO_LARGE,
                    "user metadata is " + bytes + " bytes, at most " + MAX_USER_METADATA_BYTES + " are allowed");
        }
    }

    /** @throws StoreException INVALID_ARGUMENT outside 1..{@link #MAX_PART_NUMBER} */
    public static void validatePartNumber(int partNumber) throws StoreException {
        if (partNumber < 1 || partNumber > MAX_PART_NUMBER) {
            throw new StoreException(StoreError.INVALID_ARGUMENT,
                    "part number must be an integer between 1 and " + MAX_PART_NUMBER + ", was " + partNumber);
        }
    }

    private static byte[] strictUtf8(String s) {
        try {
            ByteBuffer encoded = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(java.nio.CharBuffer.wrap(s));
            byte[] out = new byte[encoded.remaining()];
            encoded.get(out);
            return out;
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
