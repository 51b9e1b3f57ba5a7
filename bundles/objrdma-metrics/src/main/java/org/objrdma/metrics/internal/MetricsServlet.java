package org.objrdma.metrics.internal;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import java.io.IOException;
import java.io.OutputStream;
import javax.servlet.http.HttpServlet;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

/**
 * Answers a scrape: refreshes the meters' snapshots, then writes the registry in the format the scraper
 * accepts (OpenMetrics when its Accept header asks for it, else the Prometheus text format 0.0.4). Only GET
 * and HEAD; anything else is the servlet's 405.
 */
final class MetricsServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    private final transient ObjrdmaMeters meters;
    private final transient PrometheusMeterRegistry registry;
    private final transient ExpositionFormats formats = ExpositionFormats.init();

    MetricsServlet(ObjrdmaMeters meters, PrometheusMeterRegistry registry) {
        this.meters = meters;
        this.registry = registry;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String contentType = formats.findWriter(req.getHeader("Accept")).getContentType();
        byte[] body = scrape(contentType);
        resp.setStatus(HttpServletResponse.SC_OK);
        resp.setContentType(contentType);
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(body.length);
        try (OutputStream out = resp.getOutputStream()) {
            out.write(body);
        }
    }

    /** One scrape at a time: the snapshots refresh() takes are the ones the written gauges read. */
    synchronized byte[] scrape(String contentType) throws IOException {
        meters.refresh();
        var out = new java.io.ByteArrayOutputStream(16 * 1024);
        registry.scrape(out, contentType);
        return out.toByteArray();
    }
}
