package org.objrdma.s3;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** An in-memory {@link S3Request} for unit tests. */
public final class TestRequest implements S3Request {

    private final String method;
    private final String rawPath;
    private final String rawQuery;
    private final Map<String, List<String>> headers = new LinkedHashMap<>();
    private InputStream body = new ByteArrayInputStream(new byte[0]);
    private boolean secure;

    public TestRequest(String method, String rawPath, String rawQuery) {
        this.method = method;
        this.rawPath = rawPath;
        this.rawQuery = rawQuery == null ? "" : rawQuery;
    }

    public TestRequest header(String name, String value) {
        headers.computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(value);
        return this;
    }

    public TestRequest removeHeader(String name) {
        headers.remove(name.toLowerCase(Locale.ROOT));
        return this;
    }

    /** As if the request had come over TLS (https). */
    public TestRequest secure(boolean overTls) {
        this.secure = overTls;
        return this;
    }

    @Override
    public boolean secure() {
        return secure;
    }

    public TestRequest body(byte[] bytes) {
        this.body = new ByteArrayInputStream(bytes);
        return this;
    }

    public TestRequest body(InputStream in) {
        this.body = in;
        return this;
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String rawPath() {
        return rawPath;
    }

    @Override
    public String rawQuery() {
        return rawQuery;
    }

    @Override
    public List<String> headers(String name) {
        return headers.getOrDefault(name.toLowerCase(Locale.ROOT), List.of());
    }

    @Override
    public Iterable<String> headerNames() {
        return headers.keySet();
    }

    @Override
    public InputStream body() {
        return body;
    }
}
