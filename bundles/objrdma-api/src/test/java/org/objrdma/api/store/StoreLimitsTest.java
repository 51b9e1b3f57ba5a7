package org.objrdma.api.store;

import static org.junit.jupiter.api.Assertions.*;

import java.util.Map;
import org.junit.jupiter.api.Test;

class StoreLimitsTest {
    private static StoreError bucketError(String name) {
        return assertThrows(StoreException.class, () -> StoreLimits.validateBucketName(name), name).error();
    }

    @Test
    void bucketNamesFollowS3Rules() throws StoreException {
        for (String ok : new String[] {"abc", "my-bucket.data", "a1b", "x".repeat(63), "1.2.3.4a"}) {
            StoreLimits.validateBucketName(ok);
        }
        for (String bad : new String[] {null, "", "ab", "x".repeat(64), "Abc", "-abc", "abc-", ".abc", "abc.",
                "a..b", "a_b", "192.168.1.1", "xn--abc", "sthree-x", "amzn-s3-demo-x", "abc-s3alias", "abc--ol-s3",
                "abc.mrap", "abc--x-s3", "abc--table-s3", "ab c", "äbc"}) {
            assertEquals(StoreError.INVALID_BUCKET_NAME, bucketError(bad));
        }
    }

    @Test
    void keysAreBoundedInUtf8Bytes() throws StoreException {
        assertEquals(1024, StoreLimits.validateKey("a".repeat(1024)).length);
        assertEquals(1023, StoreLimits.validateKey("é".repeat(511) + "a").length);
        assertEquals(StoreError.KEY_TOO_LONG,
                assertThrows(StoreException.class, () -> StoreLimits.validateKey("a".repeat(1025))).error());
        // 513 two-byte characters are 1026 bytes though only 513 UTF-16 units
        assertEquals(StoreError.KEY_TOO_LONG,
                assertThrows(StoreException.class, () -> StoreLimits.validateKey("é".repeat(513))).error());
        assertEquals(StoreError.INVALID_ARGUMENT,
                assertThrows(StoreException.class, () -> StoreLimits.validateKey("")).error());
        assertEquals(StoreError.INVALID_ARGUMENT,
                assertThrows(StoreException.class, () -> StoreLimits.validateKey("a\uD800b")).error());
    }

    @Test
    void partNumbersAndMetadata() throws StoreException {
        StoreLimits.validatePartNumber(1);
        StoreLimits.validatePartNumber(10_000);
        assertThrows(StoreException.class, () -> StoreLimits.validatePartNumber(0));
        assertThrows(StoreException.class, () -> StoreLimits.validatePartNumber(10_001));
        StoreLimits.validateUserMetadata(Map.of("k", "v".repeat(2047)));
        assertEquals(StoreError.METADATA_TOO_LARGE, assertThrows(StoreException.class,
                () -> StoreLimits.validateUserMetadata(Map.of("k", "v".repeat(2048)))).error());
    }

    @Test
    void errorsCarryS3CodeAndStatus() {
        assertEquals("BucketAlreadyOwnedByYou", StoreError.BUCKET_ALREADY_OWNED_BY_YOU.s3Code());
        assertEquals(409, StoreError.BUCKET_NOT_EMPTY.httpStatus());
        assertEquals(416, StoreError.INVALID_RANGE.httpStatus());
        assertEquals(304, StoreError.NOT_MODIFIED.httpStatus());
        StoreException e = new StoreException(StoreError.NO_SUCH_KEY, "b/k");
        assertEquals("NoSuchKey: b/k", e.getMessage());
        assertEquals("b/k", e.detail());
        assertEquals(StoreError.values().length,
                java.util.Arrays.stream(StoreError.values()).map(StoreError::s3Code).distinct().count(),
                "one S3 code per error");
    }
}
