package org.objrdma.client.sdk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The argument rules the paths share, at their edges: the {@code Range} forms, the client's {@code rdma.min.bytes}
 * and the RC target. The same rules through a real gateway (a span outside the memory, a suffix range, a
 * {@code minBytes} of 0 refused before anything is sent) are in {@link RdmaS3Test}.
 */
class SpansTest {
    @Test
    void closedAndOpenRangesAreHalfOpenSpans() {
        assertArrayEquals(new long[] {0, 1}, Spans.parseRange("bytes=0-0"));
        assertArrayEquals(new long[] {10, 4106}, Spans.parseRange(" bytes=10-4105 "));
        assertArrayEquals(new long[] {7, -1}, Spans.parseRange("bytes=7-"));
        assertNull(Spans.parseRange(null));
        assertNull(Spans.parseRange("  "));
    }

    @Test
    void rangesTheRdmaPathCannotExpressAreRefused() {
        for (String range : new String[] {"bytes=-500", "bytes=0-1,4-5", "items=0-1", "bytes=a-b"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Spans.parseRange(range));
            assertTrue(e.getMessage().contains("only bytes=FIRST-LAST and bytes=FIRST-"), e.getMessage());
        }
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Spans.parseRange("bytes=5-4")).getMessage()
                .contains("the last byte is before the first"));
    }

    @Test
    void theClientsMinBytesChoosesHttpBelowItAndNeverForNothing() {
        MinBytes min = new MinBytes(4096);
        assertTrue(min.choosesHttp(1));
        assertTrue(min.choosesHttp(4095));
        assertFalse(min.choosesHttp(4096));
        assertFalse(min.choosesHttp(0), "an empty span is no choice: it is moved over HTTP as a decline");
        assertFalse(new MinBytes(1).choosesHttp(1));
        assertEquals("rdma.min.bytes must be at least 1, was 0",
                assertThrows(IllegalArgumentException.class, () -> new MinBytes(0)).getMessage());
    }

    @Test
    void theRcTargetEncodesEachPathSegment() {
        assertEquals("/b/dir/a%20b~c%2Bd", RcPath.target("b", "dir/a b~c+d", null, 0));
        assertEquals("/b/k%25%3F?uploadId=u%26v&partNumber=3", RcPath.target("b", "k%?", "u&v", 3));
        assertEquals("/b//x/", RcPath.target("b", "/x/", null, 0), "empty segments stay: S3 keys may have them");
    }
}
