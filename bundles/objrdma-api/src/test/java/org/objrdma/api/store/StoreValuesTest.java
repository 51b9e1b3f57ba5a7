package org.objrdma.api.store;

import static org.junit.jupiter.api.Assertions.*;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class StoreValuesTest {
    private static final Instant T = Instant.parse("2026-12-01T10:00:00.700Z");

    @Test
    void conditionsFollowTheHttpOrder() {
        assertEquals(Conditions.Outcome.PROCEED, Conditions.NONE.evaluate("abc", T));
        assertEquals(Conditions.Outcome.PROCEED, Conditions.ifMatch("\"abc\"").evaluate("abc", T));
        assertEquals(Conditions.Outcome.PROCEED, Conditions.ifMatch("x, W/\"abc\"").evaluate("abc", T));
        assertEquals(Conditions.Outcome.PROCEED, Conditions.ifMatch("*").evaluate("abc", T));
        assertEquals(Conditions.Outcome.PRECONDITION_FAILED, Conditions.ifMatch("abd").evaluate("abc", T));
        assertEquals(Conditions.Outcome.NOT_MODIFIED, Conditions.ifNoneMatch("abc").evaluate("abc", T));
        assertEquals(Conditions.Outcome.PROCEED, Conditions.ifNoneMatch("abd").evaluate("abc", T));
        Instant second = Instant.parse("2026-12-01T10:00:00Z");
        // dates compare at whole seconds: modified at .700 is not after 10:00:00
        assertEquals(Conditions.Outcome.NOT_MODIFIED, new Conditions(null, null, second, null).evaluate("abc", T));
        assertEquals(Conditions.Outcome.PROCEED,
                new Conditions(null, null, second.minusSeconds(1), null).evaluate("abc", T));
        assertEquals(Conditions.Outcome.PROCEED, new Conditions(null, null, null, second).evaluate("abc", T));
        assertEquals(Conditions.Outcome.PRECONDITION_FAILED,
                new Conditions(null, null, null, second.minusSeconds(1)).evaluate("abc", T));
        // S3: If-Match true wins over a false If-Unmodified-Since; a matching If-None-Match wins over If-Modified-Since
        assertEquals(Conditions.Outcome.PROCEED,
                new Conditions("abc", null, null, second.minusSeconds(1)).evaluate("abc", T));
        assertEquals(Conditions.Outcome.NOT_MODIFIED,
                new Conditions(null, "abc", second.minusSeconds(10), null).evaluate("abc", T));
        StoreException e = assertThrows(StoreException.class,
                () -> Conditions.ifNoneMatch("abc").checkCopySource("abc", T));
        assertEquals(StoreError.PRECONDITION_FAILED, e.error());
        assertEquals(StoreError.NOT_MODIFIED,
                assertThrows(StoreException.class, () -> Conditions.ifNoneMatch("abc").check("abc", T)).error());
    }

    @Test
    void rangesResolveAsS3Does() throws StoreException {
        assertEquals(Optional.empty(), ByteRange.resolve(null, 10));
        assertEquals(Optional.empty(), ByteRange.resolve("bytes=0-1,3-4", 10));
        assertEquals(Optional.empty(), ByteRange.resolve("items=0-1", 10));
        assertEquals(Optional.empty(), ByteRange.resolve("bytes=5-2", 10));
        assertEquals(new ByteRange(2, 3), ByteRange.resolve("bytes=2-4", 10).orElseThrow());
        assertEquals(new ByteRange(2, 8), ByteRange.resolve("bytes=2-", 10).orElseThrow());
        assertEquals(new ByteRange(2, 8), ByteRange.resolve("bytes=2-100", 10).orElseThrow());
        assertEquals(new ByteRange(7, 3), ByteRange.resolve("bytes=-3", 10).orElseThrow());
        assertEquals(new ByteRange(0, 10), ByteRange.resolve("bytes=-30", 10).orElseThrow());
        assertEquals(9, ByteRange.resolve("bytes=-1", 10).orElseThrow().last());
        for (String bad : new String[] {"bytes=10-", "bytes=10-20", "bytes=-0"}) {
            assertEquals(StoreError.INVALID_RANGE,
                    assertThrows(StoreException.class, () -> ByteRange.resolve(bad, 10)).error(), bad);
        }
        assertThrows(StoreException.class, () -> ByteRange.resolve("bytes=0-0", 0));
    }

    @Test
    void valuesNormalizeAndValidate() {
        ObjectAttributes a = new ObjectAttributes(null, null, null, null, null, null, Map.of("Color", "Blue"));
        assertEquals(ObjectAttributes.DEFAULT_CONTENT_TYPE, a.contentType());
        assertEquals(Map.of("color", "Blue"), a.userMetadata());
        assertThrows(IllegalArgumentException.class,
                () -> new ObjectAttributes(null, null, null, null, null, null, Map.of("", "x")));
        assertEquals(1000, new ListRequest(null, null, 5000, "", "").maxKeys());
        assertNull(new ListRequest(null, null, 1, "", "").continuationToken());
        assertThrows(IllegalArgumentException.class, () -> new ListRequest("", "", -1, null, null));
        assertThrows(IllegalArgumentException.class, () -> new ListPage(List.of(), List.of(), true, null));
        assertEquals("ETag", Conditions.unquote("\"ETag\""));
        Digests d = new Digests(0, "d41d8cd98f00b204e9800998ecf8427e", Map.of());
        assertEquals("1B2M2Y8AsgTpgAmY7PhCfg==", d.md5Base64());
        assertTrue(DeleteResult.deleted("k").isDeleted());
        assertFalse(DeleteResult.failed("k", new StoreException(StoreError.ACCESS_DENIED, "no")).isDeleted());
        assertThrows(IllegalArgumentException.class, () -> new ByteRange(0, 0));
    }
}
