package org.objrdma.s3;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;

/**
 * One HTTP request as the protocol layer needs it, independent of any servlet container: a host store with
 * its own HTTP server implements this (objrdma's servlet adapter is one implementation).
 */
public interface S3Request {

    /** The method in upper case: GET, PUT, ... */
    String method();

    /** The request path exactly as received, still percent-encoded (never decoded or normalized). */
    String rawPath();

    /** The query string exactly as received, without {@code ?}; empty if there is none. */
    String rawQuery();

    /** All values of a header (case-insensitive name), in arrival order; empty if absent. */
    List<String> headers(String name);

    /** All header names as received. */
    Iterable<String> headerNames();

    /** The first value of a header, or null. */
    default String header(String name) {
        List<String> values = headers(name);
        return values.isEmpty() ? null : values.get(0);
    }

    /**
     * Whether the request arrived over TLS ({@code https}). SigV4 does not sign the scheme; this decides the scheme
     * of the absolute URLs the gateway writes (CompleteMultipartUpload's Location) and that no https request is
     * redirected to a plain-http node. An implementation that cannot tell answers false (the default).
     */
    default boolean secure() {
        return false;
    }

    /**
     * The IP address the request came from (no port), as the connection shows it: what per-source bounds of the
     * unsigned RC connection routes count by. An implementation that cannot tell answers the empty string (the
     * default), and all its requests then share one source.
     *
     * @since 1.3
     */
    default String remoteAddress() {
        return "";
    }

    /** The request body as sent on the wire (after HTTP transfer decoding). */
    InputStream body() throws IOException;
}
