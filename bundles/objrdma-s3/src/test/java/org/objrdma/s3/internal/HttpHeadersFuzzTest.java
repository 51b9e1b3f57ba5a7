package org.objrdma.s3.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import org.objrdma.api.store.ByteRange;
import org.objrdma.api.store.Conditions;
import org.objrdma.api.store.StoreError;
import org.objrdma.api.store.StoreException;

/**
 * Fuzz targets (Jazzer) for the GET headers the gateway interprets: {@code Range} (resolved by the store API's
 * {@link ByteRange#resolve}, as {@code ObjectOperations} calls it) and the conditional headers (dates through
 * {@link Http#parseHttpDate}, entity tags through {@link Conditions}). Properties: never an exception other than
 * the documented INVALID_RANGE; a resolved range lies inside the object; a parsed date prints and parses back to
 * itself; RFC 9110's wildcard rules hold whatever else is sent.
 */
class HttpHeadersFuzzTest {
    private static final Instant LAST_MODIFIED = Instant.parse("2026-12-01T09:00:00Z");

    private static String[] lines(byte[] input) {
        return new String(input, StandardCharsets.UTF_8).split("\n", -1);
    }

    /** Line 0: the object size (decimal, else 0; capped at 2^50); line 1: the Range header (absent: none). */
    @FuzzTest
    @DictionaryEntries({"bytes=", "-", ",", "0", "9223372036854775807", "bytes=-0", " "})
    void rangeHeader(byte[] input) {
        String[] l = lines(input);
        long size = l[0].matches("\\d{1,15}") ? Math.min(Long.parseLong(l[0]), 1L << 50) : 0;
        String header = l.length > 1 ? l[1] : null;
        try {
            Optional<ByteRange> r = ByteRange.resolve(header, size);
            r.ifPresent(range -> {
                assertTrue(range.offset() >= 0 && range.length() >= 1, "range " + range);
                assertTrue(range.last() < size, "range " + range + " ends past an object of " + size + " bytes");
            });
        } catch (StoreException e) {
            assertEquals(StoreError.INVALID_RANGE, e.error(), "a Range refusal other than InvalidRange: " + e);
        }
    }

    /** Lines: If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since, the object's ETag (absent: null). */
    @FuzzTest
    @DictionaryEntries({"*", "W/", ",", " GMT", "Tue, 01 Dec 2026 09:00:00 GMT", "Mon, ", "Dec"})
    void conditionalHeaders(byte[] input) {
        String[] l = lines(input);
        String ifMatch = l.length > 0 && !l[0].isEmpty() ? l[0] : null;
        String ifNoneMatch = l.length > 1 && !l[1].isEmpty() ? l[1] : null;
        Instant modifiedSince = Http.parseHttpDate(l.length > 2 ? l[2] : null);
        Instant unmodifiedSince = Http.parseHttpDate(l.length > 3 ? l[3] : null);
        String etag = l.length > 4 ? l[4] : "\"5d41402abc4b2a76b9719d911017c592\"";
        for (Instant t : new Instant[] {modifiedSince, unmodifiedSince}) {
            // an HTTP date has a 4-digit year; the parser also takes longer ones (harmless: they only compare),
            // which the printer cannot print — the first finding of this target, kept as an input
            if (t != null && t.atZone(java.time.ZoneOffset.UTC).getYear() <= 9999) {
                assertEquals(t, Http.parseHttpDate(Http.httpDate(t)), "an HTTP date does not round-trip");
            }
        }
        Conditions c = new Conditions(ifMatch, ifNoneMatch, modifiedSince, unmodifiedSince);
        Conditions.Outcome o = c.evaluate(etag, LAST_MODIFIED);
        if (ifMatch != null && ifMatch.strip().equals("*")) {
            assertNotEquals(Conditions.Outcome.PRECONDITION_FAILED, o, "If-Match: * failed an existing object");
        }
        if (ifNoneMatch != null && ifNoneMatch.strip().equals("*") && o != Conditions.Outcome.PRECONDITION_FAILED) {
            assertEquals(Conditions.Outcome.NOT_MODIFIED, o, "If-None-Match: * served an existing object");
        }
        if (c.isEmpty()) {
            assertEquals(Conditions.Outcome.PROCEED, o, "no condition, yet not served");
        }
    }
}
