package org.objrdma.s3;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/** Captures an {@link S3Response} for assertions. */
public final class TestResponse implements S3Response {

    public int status = -1;
    public long contentLength = -1;
    public final Map<String, String> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();

    @Override
    public void status(int s) {
        status = s;
    }

    @Override
    public void header(String name, String value) {
        headers.put(name, value);
    }

    @Override
    public void contentLength(long length) {
        contentLength = length;
    }

    @Override
    public OutputStream body() {
        return body;
    }

    public byte[] bytes() {
        return body.toByteArray();
    }

    public String text() {
        return body.toString(StandardCharsets.UTF_8);
    }

    public String header(String name) {
        return headers.get(name);
    }
}
