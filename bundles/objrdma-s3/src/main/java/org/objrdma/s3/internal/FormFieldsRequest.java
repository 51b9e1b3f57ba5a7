package org.objrdma.s3.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.objrdma.s3.S3Request;

/**
 * A browser POST upload seen as the PUT it stands for: the form's fields (lower-case names) are its headers
 * (Content-Type, Cache-Control, x-amz-meta-*, x-amz-checksum-*, ...), so the object's attributes and declared
 * checksums are read exactly as a PutObject's are. Host and the connection's scheme are the real request's. The
 * file is not this request's body; the operation hands it to the store itself.
 */
final class FormFieldsRequest implements S3Request {

    private final S3Request http;
    private final Map<String, String> fields;

    FormFieldsRequest(S3Request http, Map<String, String> fields) {
        this.http = http;
        this.fields = Map.copyOf(fields);
    }

    @Override
    public String method() {
        return http.method();
    }

    @Override
    public String rawPath() {
        return http.rawPath();
    }

    @Override
    public String rawQuery() {
        return http.rawQuery();
    }

    @Override
    public List<String> headers(String name) {
        if (name.equalsIgnoreCase("Host")) {
            return http.headers(name);
        }
        String v = fields.get(name.toLowerCase(Locale.ROOT));
        return v == null ? List.of() : List.of(v);
    }

    @Override
    public Iterable<String> headerNames() {
        return fields.keySet();
    }

    @Override
    public boolean secure() {
        return http.secure();
    }

    @Override
    public InputStream body() throws IOException {
        throw new IOException("A browser POST's file is read from the form, not from this view");
    }
}
