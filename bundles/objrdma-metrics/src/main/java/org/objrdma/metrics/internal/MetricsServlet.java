package org.objrdma.metrics.internal;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * Answers a scrape: checks who asks ({@code loopback.only}, {@code bearer.token}), then writes the registry
 * in the format the scraper accepts (OpenMetrics when its Accept header asks for it, else the Prometheus
 * text format 0.0.4). Scrapes that arrive together share one ({@link SharedScrape}). Only GET and HEAD;
 * anything else is the servlet's 405.
 */
final class MetricsServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final transient ObjrdmaMeters meters;
    private final transient PrometheusMeterRegistry registry;
    private final transient ExpositionFormats formats = ExpositionFormats.init();
    private final transient SharedScrape shared = new SharedScrape(this::take);
    /** Who may scrape; replaced whole by a configuration change. */
    private transient volatile MetricsSettings access = new MetricsSettings(MetricsSettings.DEFAULT_PATH, true);

    MetricsServlet(ObjrdmaMeters meters, PrometheusMeterRegistry registry) {
        this.meters = meters;
        this.registry = registry;
    }

    void access(MetricsSettings settings) {
        this.access = settings;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        MetricsSettings a = access;
        if (a.loopbackOnly() && !isLoopback(req.getRemoteAddr())) {
            refuse(resp, HttpServletResponse.SC_FORBIDDEN, "the metrics endpoint answers loopback clients only "
                    + "(org.objrdma.metrics loopback.only = true)");
            return;
        }
        if (!a.bearerToken().isEmpty() && !presents(req.getHeader("Authorization"), a.bearerToken())) {
            resp.setHeader("WWW-Authenticate", "Bearer realm=\"objrdma-metrics\"");
            refuse(resp, HttpServletResponse.SC_UNAUTHORIZED, "the metrics endpoint needs Authorization: Bearer "
                    + "with the token of org.objrdma.metrics bearer.token");
            return;
        }
        String contentType = formats.findWriter(req.getHeader("Accept")).getContentType();
        byte[] body = shared.get(contentType);
        resp.setStatus(HttpServletResponse.SC_OK);
        resp.setContentType(contentType);
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(body.length);
        try (OutputStream out = resp.getOutputStream()) {
            out.write(body);
        }
    }

    private static void refuse(HttpServletResponse resp, int status, String why) throws IOException {
        byte[] body = (why + "\n").getBytes(StandardCharsets.UTF_8);
        resp.setStatus(status);
        resp.setContentType("text/plain; charset=utf-8");
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(body.length);
        try (OutputStream out = resp.getOutputStream()) {
            out.write(body);
        }
    }

    static boolean isLoopback(String remoteAddress) {
        if (remoteAddress == null) {
            return false;
        }
        String literal = remoteAddress.startsWith("[") && remoteAddress.endsWith("]")
                ? remoteAddress.substring(1, remoteAddress.length() - 1) : remoteAddress;
        try {
            // the connection's address literal: parsed, never looked up
            return InetAddress.ofLiteral(literal).isLoopbackAddress();
        } catch (IllegalArgumentException notALiteral) {
            return false;
        }
    }

    /** Compared in constant time, so the token cannot be guessed byte by byte from response times. */
    static boolean presents(String authorization, String token) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return false;
        }
        byte[] sent = authorization.substring(7).strip().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(sent, token.getBytes(StandardCharsets.UTF_8));
    }

    /** Takes one scrape: the snapshots refresh() takes are the ones the written gauges read. */
    byte[] take(String contentType) throws IOException {
        meters.refresh();
        var out = new java.io.ByteArrayOutputStream(16 * 1024);
        registry.scrape(out, contentType);
        return out.toByteArray();
    }

    /** One scrape as a scraper gets it (shared with concurrent ones). */
    byte[] scrape(String contentType) throws IOException {
        return shared.get(contentType);
    }
}
