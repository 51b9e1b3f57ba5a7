package org.objrdma.s3.internal;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.objrdma.api.store.ChecksumAlgorithm;
import org.objrdma.api.store.ObjectAttributes;
import org.objrdma.api.store.ObjectInfo;
import org.objrdma.s3.S3Request;
import org.objrdma.s3.S3Response;

/** Object headers in and out: what a writer sends is stored, and GET/HEAD send it back. */
final class Attributes {

    private static final String META = "x-amz-meta-";

    private Attributes() {
    }

    static ObjectAttributes from(S3Request r) {
        Map<String, String> meta = new TreeMap<>();
        for (String name : r.headerNames()) {
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.startsWith(META) && lower.length() > META.length()) {
                meta.put(lower.substring(META.length()), String.join(",", r.headers(name)));
            }
        }
        return new ObjectAttributes(r.header("Content-Type"), storedEncoding(r.header("Content-Encoding")),
                r.header("Content-Disposition"), r.header("Content-Language"), r.header("Cache-Control"),
                r.header("Expires"), meta);
    }

    /**
     * Content-Encoding as sent, without the transport-only {@code aws-chunked}; null when nothing remains.
     * What remains keeps its spelling (S3 returns {@code deflate, gzip} with its space): only the
     * {@code aws-chunked} coding and the comma that joined it are taken out.
     */
    static String storedEncoding(String header) {
        if (header == null) {
            return null;
        }
        String[] parts = header.split(",", -1);
        StringBuilder sb = new StringBuilder();
        boolean removed = false;
        for (String part : parts) {
            if (part.strip().equalsIgnoreCase("aws-chunked")) {
                removed = true;
                continue;
            }
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(part);
        }
        String kept = removed ? sb.toString().strip() : header;
        return kept.strip().isEmpty() ? null : kept;
    }

    /** The headers GET and HEAD answer with for {@code info}. */
    static void write(S3Response out, ObjectInfo info, boolean checksums) {
        ObjectAttributes a = info.attributes();
        out.header("ETag", Http.quote(info.etag()));
        out.header("Last-Modified", Http.httpDate(info.lastModified()));
        out.header("Accept-Ranges", "bytes");
        out.header("Content-Type", a.contentType());
        setIf(out, "Content-Encoding", a.contentEncoding());
        setIf(out, "Content-Disposition", a.contentDisposition());
        setIf(out, "Content-Language", a.contentLanguage());
        setIf(out, "Cache-Control", a.cacheControl());
        setIf(out, "Expires", a.expires());
        a.userMetadata().forEach((k, v) -> out.header(META + k, v));
        if (checksums) {
            writeChecksums(out, info.checksums());
        }
    }

    static void writeChecksums(S3Response out, Map<ChecksumAlgorithm, String> checksums) {
        checksums.forEach((alg, v) -> out.header(alg.headerName(), v));
    }

    private static void setIf(S3Response out, String name, String value) {
        if (value != null) {
            out.header(name, value);
        }
    }
}
