package org.objrdma.s3.internal.servlet;

import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.List;
import javax.servlet.http.HttpServletRequest;
import org.objrdma.s3.S3Request;

/** A servlet request seen through {@link S3Request}: the raw URI, never the decoded path info. */
final class ServletS3Request implements S3Request {

    private final HttpServletRequest request;

    ServletS3Request(HttpServletRequest request) {
        this.request = request;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String rawPath() {
        // getRequestURI is still percent-encoded; getPathInfo would fold %2F and // (measured on Pax Web 8)
        return request.getRequestURI();
    }

    @Override
    public String rawQuery() {
        String q = request.getQueryString();
        return q == null ? "" : q;
    }

    @Override
    public List<String> headers(String name) {
        List<String> values = Collections.list(request.getHeaders(name));
        values.replaceAll(HeaderBytes::asSent);
        return values;
    }

    @Override
    public Iterable<String> headerNames() {
        return Collections.list(request.getHeaderNames());
    }

    @Override
    public boolean secure() {
        // Jetty's SecureRequestCustomizer marks requests of Pax Web's secure (TLS) connector
        return request.isSecure();
    }

    @Override
    public String remoteAddress() {
        String a = request.getRemoteAddr();
        return a == null ? "" : a;
    }

    @Override
    public InputStream body() throws IOException {
        return new ContainerBodyInputStream(request.getInputStream());
    }
}
