package org.objrdma.s3.internal;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/** The date formats S3 speaks: RFC 1123 in headers, ISO 8601 with milliseconds in XML. */
final class Http {

    private static final DateTimeFormatter ISO_MILLIS = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'",
            Locale.ROOT).withZone(ZoneOffset.UTC);

    /**
     * RFC 9110's IMF-fixdate ({@code Thu, 03 Dec 2026 09:05:01 GMT}): a two-digit day, always. The JDK's
     * RFC_1123_DATE_TIME prints {@code 3 Dec}, which RFC 9110 allows a recipient to refuse. The year is the
     * proleptic one ({@code uuuu}), as the parser reads it: the year-of-era ({@code yyyy}) prints the year 0 as 0001.
     */
    private static final DateTimeFormatter IMF_FIXDATE = DateTimeFormatter.ofPattern("EEE, dd MMM uuuu HH:mm:ss 'GMT'",
            Locale.US).withZone(ZoneOffset.UTC);

    private Http() {
    }

    static String httpDate(Instant t) {
        return IMF_FIXDATE.format(t);
    }

    static String isoDate(Instant t) {
        return ISO_MILLIS.format(t);
    }

    /** An HTTP date, or null when absent or unparsable (RFC 9110: an invalid date is ignored). */
    static Instant parseHttpDate(String s) {
        if (s == null) {
            return null;
        }
        try {
            return ZonedDateTime.parse(s.strip(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    static String quote(String etag) {
        return '"' + etag + '"';
    }

    /** True if {@code Transfer-Encoding} ends in {@code chunked} (HTTP/1.1's framing of a body of unknown length). */
    static boolean chunkedTransfer(String transferEncoding) {
        if (transferEncoding == null) {
            return false;
        }
        String[] codings = transferEncoding.split(",");
        return codings[codings.length - 1].strip().equalsIgnoreCase("chunked");
    }
}
